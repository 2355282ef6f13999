"""The CuPy backend's array programs: the NumPy printer's program with runs of elementwise ops
fused into one CUDA kernel each (``printer.CupyPrinter``), and the runtime they call
(``runtime.CupyRuntime``)."""
