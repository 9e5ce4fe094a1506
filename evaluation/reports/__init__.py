"""Reports: the uncontested evaluation's Markdown report, hand records scored against par, learning curves."""
