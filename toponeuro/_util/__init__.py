"""Small shared internals: labelled alignment, deprecations, devices, dimension names, the docstring dictionary, optional dependencies, parameter checks, typing aliases, metric kernels."""
