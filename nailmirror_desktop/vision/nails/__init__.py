"""Nails on a hand: the geometry from landmarks, the regions of interest, the segmenter and its refinement, shapes and
tracks across frames."""
