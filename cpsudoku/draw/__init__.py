"""Pictures of puzzles: SVG drawn from each rule's own shapes, and PNG from the SVG."""

from cpsudoku.draw.svg import Picture, drawing_of, to_svg

__all__ = ["Picture", "drawing_of", "to_svg"]
