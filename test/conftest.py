collect_ignore_glob = ["Inputs/*", "**/Output/*"]
