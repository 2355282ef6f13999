"""The expression graph and the op table (see README.md in this folder)."""
