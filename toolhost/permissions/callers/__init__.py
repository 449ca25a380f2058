"""Who is calling: the identity an authenticated transport vouches for (``identity``), how a
token's claims are read (``claims``), and deciding about callers outside a server
(``check``: ``permissions check --caller``).
"""
