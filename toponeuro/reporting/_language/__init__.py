"""The language job (``run_language_map``): its stages, fits, results, report model and writer."""
