package main

import "github.com/architect-dev/architect/sandbox"

// sandboxUsable says whether --sandbox workspace can run here (the
// architect processes the scripts start serve the sandbox's helper).
func sandboxUsable() bool {
	sandbox.EnableHelper()
	return sandbox.Check(sandbox.ModeWorkspace, "") == nil
}
