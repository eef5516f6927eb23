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

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/httpapi"
	"github.com/ilgraph/ilgraph/mcpserver"
	"github.com/ilgraph/ilgraph/token"
)

// stdin is what ilgraph mcp reads its client from (tests replace it).
var stdin io.Reader = os.Stdin

func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("mcp", `Usage: ilgraph mcp [flags]

Runs the MCP server on stdin and stdout, for desktop assistants that start
it as a subprocess (see docs/mcp.md). It reads the Neo4j that NEO4J_URI
names; logs go to stderr. The same tools are served over Streamable HTTP at
/mcp by ilgraph serve.

It acts as the API token in ILGRAPH_TOKEN (ilgraph token create), checked at
start and on every message, so that a revoked or expired token stops it
within 10 s; without one it is anonymous. With --private (or
ILGRAPH_PRIVATE=true) every read needs a token with the viewer role.`, stderr)
	timeout := fs.Duration("timeout", httpapi.DefaultRequestTimeout, "per-call timeout")
	private := fs.Bool("private", envPrivate(), "every read needs a token with the viewer role or above (default: ILGRAPH_PRIVATE)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ilgraph mcp: takes no arguments, got %q\n", fs.Args())
		return errUsage
	}
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return err
	}
	defer db.Close()
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	tokens := token.New(db, token.Options{Logger: logger})
	opts := []explore.Option{explore.WithTokens(tokens)}
	if *private {
		opts = append(opts, explore.WithPrivate())
	}
	core := coreOver(db, newInMemory(db, true), opts...)
	s := mcpserver.NewServer(core, mcpserver.Options{Logger: logger, Timeout: *timeout, Version: buildVersion()})
	if tok := os.Getenv("ILGRAPH_TOKEN"); tok != "" {
		p, err := tokens.Authenticate(ctx, tok)
		if err != nil {
			return ilgraph.WrapError(ilgraph.ErrorCode(err), err, "ILGRAPH_TOKEN: %s", ilgraph.ErrorMessage(err))
		}
		logger.Info("ilgraph mcp: acting as token", "name", p.Name, "role", p.Role.String())
		s.AddReceivingMiddleware(asToken(tokens, tok))
	}
	logger.Info("ilgraph mcp: serving MCP on stdio")
	err = s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil // the client went away, or SIGINT/SIGTERM
	}
	return err
}

// asToken runs every message the client sends as the principal tok stands
// for, checked again each time (the token service caches it), so that a
// revocation or an expiry ends the session's access while it runs.
func asToken(a ilgraph.Authenticator, tok string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p, err := a.Authenticate(ctx, tok)
			if err != nil {
				return nil, fmt.Errorf("ILGRAPH_TOKEN: %s", ilgraph.ErrorMessage(err))
			}
			return next(ilgraph.NewContextWithPrincipal(ctx, p), method, req)
		}
	}
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
