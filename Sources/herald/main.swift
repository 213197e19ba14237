print("herald: not yet wired")
