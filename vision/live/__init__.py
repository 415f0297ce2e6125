"""Live video: frame sources that release their camera (`Frame`), and the watcher that decides
when a throw has settled (`Observation`, `SettledThrow`)."""
