"""The page around the views: controls, player, tour, questions, share, export, theme."""
