"""Input sources: cluster dumps from files, the incoming manifest, and (lazily) live clusters."""
