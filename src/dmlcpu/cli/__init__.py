"""The ``python -m dmlcpu`` commands that are not the bench: ``validate`` (would DirectML accept
this operator?) and ``dispatch`` (run a DxDispatch model), each a module with ``main(argv)``.
"""
