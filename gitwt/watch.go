package gitwt

// Changed is what a Watcher saw between two Takes.
type Changed struct {
	// Paths that may have changed, relative to the top-level folder, in
	// byte order; a folder stands for everything in it.
	Paths []string
	// Appeared are those of Paths that may have appeared since (created,
	// moved in, folders); the others existed before and were only written
	// or had their mode changed in place (or are gone now).
	Appeared []string
	// All: the watcher cannot tell which paths changed (events were lost,
	// too many changed, ignore rules or attributes changed, or watching
	// broke down).
	All bool
	// Index: the repository's index was written, by someone else than
	// the caller (see Settle); what it tracks may have changed.
	Index bool
}
