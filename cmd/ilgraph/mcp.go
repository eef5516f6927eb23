package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/mcpserver"
)

// stdin is what ilgraph mcp reads its client from (tests replace it).
var stdin io.Reader = os.Stdin

func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("mcp", `Usage: ilgraph mcp [flags]

Runs the MCP server on stdin and stdout, for desktop assistants that start
it as a subprocess (see docs/mcp.md). It reads the Neo4j that NEO4J_URI
names; logs go to stderr. The same tools are served over Streamable HTTP at
/mcp by ilgraph serve.`, stderr)
	timeout := fs.Duration("timeout", httpapi.DefaultRequestTimeout, "per-call timeout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ilgraph mcp: takes no arguments, got %q\n", fs.Args())
		return errUsage
	}
	core, closeDB, err := openCore(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	s := mcpserver.NewServer(core, mcpserver.Options{Logger: logger, Timeout: *timeout, Version: buildVersion()})
	logger.Info("ilgraph mcp: serving MCP on stdio")
	err = s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil // the client went away, or SIGINT/SIGTERM
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// buildVersion is the module version the binary was built from ("dev" in
// a work tree).
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
