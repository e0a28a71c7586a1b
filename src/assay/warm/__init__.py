"""The warm client: a process that has imported everything a command needs and forks one
child per ``assay`` command (docs/deployment.md). ``client`` is the command's side (the
socket, the fingerprint of the code) and its lifetime; ``forking`` the loop that forks the
children. It imports only the standard library at the command's start, and never the
command line: the children's command is handed to it (:func:`assay.cli.entry.forked`).
"""
