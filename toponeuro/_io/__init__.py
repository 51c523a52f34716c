"""The one writer and the readers' shared internals: output files and folders, untrusted-file reading, hash-verified downloads, the cortex null cache, mesh tables and surface files."""
