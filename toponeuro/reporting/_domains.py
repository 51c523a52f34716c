"""The domains the main job maps, shared by the run, its results and its report writer."""

__all__ = ["MAP_DOMAINS", "CORTEX_DOMAINS"]

#: the five fLoc domain contrasts (each domain against the other four)
MAP_DOMAINS = ("faces", "bodies", "places", "characters", "objects")
#: domains the visfAtlas has ROIs for (it has no object-selective ROI)
CORTEX_DOMAINS = ("faces", "bodies", "places", "characters")
