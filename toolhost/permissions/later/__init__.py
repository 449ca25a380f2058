"""What a command line runs later, or reads before it runs: the files and tables the Bash
judgement reads beyond the line itself.

A line may write a file a later command runs (a git hook, ``.bashrc``: ``files``, ``edits``,
``archive``, ``dirs``, ``glob``, ``git``, ``patch``), or run code a file of the project holds
(a Makefile: ``make`` and its ``make_*`` readers, ``makefile``; a package's scripts:
``package``, ``package_files``; task runners: ``tasks``, ``task_tables``; a script an earlier
call wrote: ``script``; a module shadowing the standard library: ``shadow``; a toolchain the
directory chooses: ``toolchain``). Each reader judges what it finds as Bash command lines
(``judge``, ``words``, ``guard``), and fails closed on what it cannot read (``where``).
"""
