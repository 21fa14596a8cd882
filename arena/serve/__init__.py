"""``arena serve``: a competition that runs itself (issue 21).

The floor between ``publish`` and ``bench``: it takes uploaded bot archives
(``archive``), keeps the competition's state in a database (``db``), validates
each submission with the check-bot logic in a child process (``validate``) and
answers over HTTP (``app``). Game results stay in the append-only results store.
"""
