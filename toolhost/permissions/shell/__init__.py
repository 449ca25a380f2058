"""A shell command line read the way bash reads it: split into the simple commands it runs
(``parse``), its backslash-newlines removed first (``joins``), ANSI-C quoting and the parser's
error (``quoting``), and the expansions whose text bash evaluates as code (``expansions``).
"""
