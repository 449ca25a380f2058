"""The Bash judgement: which programs a command line runs, proven from its words, and
everything that can make a line run code it does not name (the strings a program runs,
interpreter options and environment variables that load code, files of the home folder or
the project that choose a program, a file the line writes and then runs). ``policy`` is its
entry: the Bash part of a compiled policy."""
