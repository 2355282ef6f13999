"""PyTorch as a backend: its class and the runtime its programs call."""
