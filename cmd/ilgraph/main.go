// Command ilgraph loads incident cases into Neo4j and serves the GraphQL API.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ilgraph/ilgraph"
)

const usage = `ilgraph — a graph explorer and similarity service for incident post-mortems

Usage:
  ilgraph <command> [flags] [args]

Commands:
  load    validate case files and load them into Neo4j
  export  write every case back as files, one per case (what load reads)
  serve   serve the GraphQL API, the JSON API and MCP over HTTP
  mcp     serve MCP on stdio, for desktop assistants
  similar rank the cases most like a case or an incident in progress; explain a pair
  stats   corpus statistics
  import  turn postmortems.app files or plain descriptions into machine-tagged cases
  gen     write a synthetic corpus for benchmarks
  eval    measure suggestions, similar-case rankings and typed descriptions on a corpus
  token   create, list and revoke API tokens
  help    show this text (or: ilgraph <command> --help)

Neo4j is reached through NEO4J_URI (default bolt://127.0.0.1:7687), NEO4J_USER,
NEO4J_PASSWORD and NEO4J_DATABASE (default neo4j).
`

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the command failed (Neo4j unreachable, internal error)
	exitUsage   = 2 // bad flags or arguments
	exitInvalid = 3 // the input is invalid; nothing was written
	// exitPartial (4, import.go): some inputs were skipped, the rest written.
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "load":
		err = runLoad(ctx, args[1:], stdout, stderr)
	case "export":
		err = runExport(ctx, args[1:], stdout, stderr)
	case "serve":
		err = runServe(ctx, args[1:], stdout, stderr)
	case "mcp":
		err = runMCP(ctx, args[1:], stdout, stderr)
	case "similar":
		err = runSimilar(ctx, args[1:], stdout, stderr)
	case "stats":
		err = runStats(ctx, args[1:], stdout, stderr)
	case "import":
		err = runImport(ctx, args[1:], stdout, stderr)
	case "gen":
		err = runGen(ctx, args[1:], stdout, stderr)
	case "eval":
		err = runEval(ctx, args[1:], stdout, stderr)
	case "token":
		err = runToken(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "ilgraph: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errUsage):
		return exitUsage
	case errors.As(err, new(errPartial)):
		return exitPartial
	}
	fmt.Fprintf(stderr, "ilgraph %s: %s\n", args[0], message(err))
	if ilgraph.ErrorCode(err) == ilgraph.EINVALID {
		return exitInvalid
	}
	return exitFailure
}

// errUsage marks an error already reported with the command's usage.
var errUsage = errors.New("usage")

// message is what a user sees for err: the whole text for input problems,
// the coded message (and its cause) otherwise, a field named by its flag.
func message(err error) string {
	var e *ilgraph.Error
	if errors.As(err, &e) && e.Err != nil && e.Code != ilgraph.EINTERNAL {
		return e.MessageIn(flagNames) + ": " + e.Err.Error()
	} else if errors.As(err, &e) && !isProblems(err) {
		return e.MessageIn(flagNames)
	}
	return err.Error()
}

// flagNames are the command line's names of the core's field keys
// (ilgraph.Field…) that its flags set: similar's, and the filter flags of
// stats.
var flagNames = map[string]string{
	ilgraph.FieldSimilarK:                                  "--k",
	ilgraph.FieldSimilarMinScore:                           "--min-score",
	ilgraph.FieldProfile:                                   "the profile flags",
	ilgraph.FieldFilterDateFrom:                            "--from",
	ilgraph.FieldFilterDateTo:                              "--to",
	ilgraph.FieldText:                                      "--text",
	ilgraph.FieldFilterExcludeOrgs:                         "--exclude-org",
	ilgraph.FieldFilterTerms(ilgraph.KindRootCause, ""):    "--root-cause",
	ilgraph.FieldFilterTerms(ilgraph.KindComponent, ""):    "--component",
	ilgraph.FieldFilterTerms(ilgraph.KindSymptom, ""):      "--symptom",
	ilgraph.FieldFilterTerms(ilgraph.KindContributing, ""): "--contributing",
	ilgraph.FieldFilterTerms(ilgraph.KindDomain, ""):       "--domain",
	ilgraph.FieldFilterTerms(ilgraph.KindOrg, ""):          "--org",
}

// newFlagSet returns a flag set whose --help prints the command's usage.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, turning a parse error into errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}
