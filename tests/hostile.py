"""Argument objects that misbehave while dmlcpu reads them (shared by the hostile tests and the
guard-page run)."""


class Field:
    """An integer field whose __index__ first runs ``change`` (the caller rearranging things)."""

    def __init__(self, value, change):
        self.value, self.change = value, change

    def __index__(self):
        self.change()
        return self.value


class LyingLength(list):
    """A list whose __len__ lies; iterating it gives the true items."""

    def __len__(self):
        return 1000


class Rebinding:
    """One output whose reading re-initializes ``op`` with ``desc`` first."""

    def __init__(self, op, desc, output):
        self.op, self.desc, self.output = op, desc, output

    def __len__(self):
        return 1

    def __getitem__(self, k):
        if k:
            raise IndexError(k)
        self.op.__init__(self.desc, None)
        return self.output
