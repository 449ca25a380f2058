"""git as the policy reads it: which word is the subcommand (``commands``), what a command
runs from the repository's configuration and hooks (``config_runs``), git's own files as git
reads them (``config_text``), and a repository read with git's plumbing (``read``).
"""
