"""Polish on nails: style textures, the polish mask and shading, and the compositor that paints them."""
