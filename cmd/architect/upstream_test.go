//go:build unix

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// upstream FILE: serves a model provider's stand-in on loopback for the
// rest of the script, its base URL in $UPSTREAM. Each request it gets
// adds a line to FILE: "METHOD PATH x-api-key=VALUE authorization=VALUE";
// it answers 200 with an empty JSON object.
func cmdUpstream(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: upstream FILE")
	}
	path := ts.MkAbs(args[0])
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		fmt.Fprintf(f, "%s %s x-api-key=%s authorization=%s\n", r.Method, r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, "{}")
	}))
	ts.Defer(srv.Close)
	ts.Setenv("UPSTREAM", srv.URL)
}
