"""The guide's examples and a tour that runs them (``symgrad tour``)."""
