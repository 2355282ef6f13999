"""MindSpore as a backend: its class, printer and the runtime its programs call."""
