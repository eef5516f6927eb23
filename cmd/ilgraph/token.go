package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ilgraph/ilgraph"
	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/graph"
	"github.com/ilgraph/ilgraph/token"
)

// operator is the principal of the command line's token commands: whoever
// can run them reaches Neo4j with its own credentials (NEO4J_USER and
// NEO4J_PASSWORD) and could change anything in it, so the core lets them
// act as an admin — which is how the first admin token is made.
var operator = ilgraph.Principal{Name: "local operator", Role: ilgraph.RoleAdmin}

const tokenUsage = `Usage:
  ilgraph token create --name NAME --role viewer|reviewer|editor|admin [--expires 90d|never] [--json]
  ilgraph token list [--json]
  ilgraph token revoke NAME

Manages the API tokens ilgraph serve accepts as Authorization: Bearer <token>
(and ilgraph mcp as ILGRAPH_TOKEN). create prints the new token once, on
stdout: only its hash is stored, so it cannot be shown again. Names are
unique and stay taken after a revocation. A revocation takes effect at once
on new connections and within 10 s on running servers.

These commands talk to the Neo4j that NEO4J_URI names, with its credentials,
and act as a local admin: whoever may run them may change the database
anyway (see docs/operations.md).`

func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" && args[0] != "-help" {
		fmt.Fprintln(stderr, tokenUsage)
		return errUsage
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Fprintln(stdout, tokenUsage)
		return nil
	case "create":
		return runTokenCreate(ctx, args[1:], stdout, stderr)
	case "list":
		return runTokenList(ctx, args[1:], stdout, stderr)
	case "revoke":
		return runTokenRevoke(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "ilgraph token: unknown subcommand %q\n\n%s\n", args[0], tokenUsage)
	return errUsage
}

// tokenCore opens the store, makes sure its token constraints exist, and
// returns a core that manages tokens, with the operator's context.
func tokenCore(ctx context.Context) (context.Context, *explore.Service, func(), error) {
	db, err := graph.Open(ctx, graph.ConfigFromEnv())
	if err != nil {
		return nil, nil, nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	core := explore.New(db, nil, explore.WithTokens(token.New(db, token.Options{})))
	return ilgraph.NewContextWithPrincipal(ctx, operator), core, func() { db.Close() }, nil
}

func runTokenCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token create", tokenUsage, stderr)
	name := fs.String("name", "", "the token's name (unique): who or what uses it, e.g. ci-nightly")
	roleName := fs.String("role", "", "viewer, reviewer, editor or admin")
	expires := fs.String("expires", "90d", "how long it lasts: a number of days (90d), hours (12h) or minutes (30m), or never")
	asJSON := fs.Bool("json", false, "print the token and its record as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *name == "" || *roleName == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "ilgraph token create: --name and --role are required, and nothing else")
		return errUsage
	}
	role, err := ilgraph.ParseRole(*roleName)
	if err != nil {
		fmt.Fprintf(stderr, "ilgraph token create: --role: %s\n", ilgraph.ErrorMessage(err))
		return errUsage
	}
	ttl, err := parseTTL(*expires)
	if err != nil {
		fmt.Fprintf(stderr, "ilgraph token create: --expires: %v\n", err)
		return errUsage
	}
	ctx, core, done, err := tokenCore(ctx)
	if err != nil {
		return err
	}
	defer done()
	secret, t, err := core.CreateToken(ctx, *name, role, ttl)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			Token string `json:"token"`
			tokenJSON
		}{secret, toJSON(t, time.Now())})
	}
	fmt.Fprintln(stdout, secret)
	exp := "never expires"
	if !t.Expires.IsZero() {
		exp = "expires " + t.Expires.Format(time.RFC3339)
	}
	fmt.Fprintf(stderr, "created token %q (%s, %s). It is printed above once and cannot be shown again: keep it in a secret store.\n", t.Name, t.Role, exp)
	return nil
}

// parseTTL reads --expires: Nd, Nh, Nm (or any Go duration), or never (0).
func parseTTL(s string) (time.Duration, error) {
	if s == "never" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q: want a number of days such as 90d, or never", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want 90d, 12h, 30m or never", s)
	}
	return d, nil
}

type tokenJSON struct {
	Name     string `json:"name"`
	Role     string `json:"role"`
	Status   string `json:"status"`
	Created  string `json:"created"`
	Expires  string `json:"expires,omitempty"`
	LastUsed string `json:"last_used,omitempty"`
	Revoked  string `json:"revoked,omitempty"`
}

func toJSON(t ilgraph.Token, now time.Time) tokenJSON {
	f := func(x time.Time) string {
		if x.IsZero() {
			return ""
		}
		return x.UTC().Format(time.RFC3339)
	}
	return tokenJSON{Name: t.Name, Role: t.Role.String(), Status: t.Status(now), Created: f(t.Created), Expires: f(t.Expires), LastUsed: f(t.LastUsed), Revoked: f(t.Revoked)}
}

func runTokenList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token list", tokenUsage, stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "ilgraph token list: takes no arguments")
		return errUsage
	}
	ctx, core, done, err := tokenCore(ctx)
	if err != nil {
		return err
	}
	defer done()
	ts, err := core.Tokens(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	if *asJSON {
		out := make([]tokenJSON, len(ts))
		for i, t := range ts {
			out[i] = toJSON(t, now)
		}
		return json.NewEncoder(stdout).Encode(out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tSTATUS\tCREATED\tEXPIRES\tLAST USED")
	for _, t := range ts {
		j := toJSON(t, now)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", j.Name, j.Role, j.Status, j.Created, or(j.Expires, "never"), or(j.LastUsed, "never"))
	}
	return tw.Flush()
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func runTokenRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token revoke", tokenUsage, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "ilgraph token revoke: takes one token name")
		return errUsage
	}
	ctx, core, done, err := tokenCore(ctx)
	if err != nil {
		return err
	}
	defer done()
	if err := core.RevokeToken(ctx, fs.Arg(0)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked token %q\n", fs.Arg(0))
	return nil
}
