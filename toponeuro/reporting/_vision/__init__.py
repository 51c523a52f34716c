"""The vision job (``run_map``): its stages, results, ruler stage, terminal summary and writer."""
