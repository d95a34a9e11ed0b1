"""Sub-commands of the ``banditree`` command line, one module each (see :mod:`testbeds.cli`)."""
