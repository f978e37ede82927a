module github.com/architect-dev/architect

go 1.26.8

require (
	github.com/gofrs/flock v0.13.1 // indirect
	github.com/google/renameio/v2 v2.0.2 // indirect
	github.com/matryer/is v1.4.1 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/sergi/go-diff v1.4.0 // indirect
	github.com/sourcegraph/conc v0.3.0 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
)
