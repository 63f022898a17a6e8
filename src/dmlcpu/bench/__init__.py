"""``python -m dmlcpu bench``: every operator timed beside NumPy, PyTorch, ONNX Runtime and a
memcpy of the same bytes. The command (``_main``), the cases (``_cases``), the peers and the
machine (``_peers``), the timing protocols (``_timing``), one case's run (``_run``), the seed
pages' examples (``_seed``) and the tables and plots (``_report``). ``import dmlcpu`` never
imports this package.
"""
