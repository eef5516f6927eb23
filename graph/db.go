// Package graph is ilgraph's Neo4j store: the only package that speaks
// Cypher. It owns the graph model (labels, relationship types, constraints,
// indexes), writes cases and vocabulary in batched, parameterised
// transactions, and answers the API's questions with read transactions.
//
// Labels and relationship types are never built from user input: they come
// from the fixed tables in model.go. Every value is a query parameter.
package graph

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
	"golang.org/x/sync/singleflight"

	"github.com/ilgraph/ilgraph"
)

// Config says how to reach Neo4j.
type Config struct {
	URI      string // bolt://, neo4j:// (routing) …
	User     string // empty: no authentication
	Password string
	Database string // empty: the server's default database
	// RetryTime bounds how long a transaction is retried on transient
	// errors (a leader switch, a dropped connection). The loader waits
	// (default 30s); the API fails fast (it sets a few seconds) so that
	// clients see an outage at once instead of hanging.
	RetryTime time.Duration
	// MaxPoolSize bounds the driver's connections (default 100). The API
	// sizes it to its admission bounds plus headroom, so that every
	// admitted request finds a connection.
	MaxPoolSize int
	// AcquireTimeout bounds how long a transaction waits for a connection
	// — a free one from the pool, or a new one opened — before it fails as
	// UNAVAILABLE (default 10s).
	AcquireTimeout time.Duration
	// ConnectTimeout bounds opening one connection (default 5s). While
	// Neo4j starts, its port may accept connections it does not answer
	// yet: each attempt then takes this long.
	ConnectTimeout time.Duration
	// FailFast, when positive, makes transactions fail at once, as
	// UNAVAILABLE, for this long after one found Neo4j unreachable,
	// instead of each retrying for RetryTime; then one at a time tries
	// while the others still fail, until one succeeds.
	// During an outage the API answers at once and its requests do not
	// hold their slots. Zero (the loader): every transaction tries.
	FailFast time.Duration
}

// Driver defaults for the zero Config.
const (
	DefaultMaxPoolSize    = 100
	DefaultAcquireTimeout = 10 * time.Second
)

// DefaultURI is the Neo4j that scripts/neo4j starts.
const DefaultURI = "bolt://127.0.0.1:7687"

// ConfigFromEnv reads NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD and
// NEO4J_DATABASE. The user defaults to neo4j when a password is set.
func ConfigFromEnv() Config {
	c := Config{
		URI:      os.Getenv("NEO4J_URI"),
		User:     os.Getenv("NEO4J_USER"),
		Password: os.Getenv("NEO4J_PASSWORD"),
		Database: os.Getenv("NEO4J_DATABASE"),
	}
	if c.URI == "" {
		c.URI = DefaultURI
	}
	if c.User == "" && c.Password != "" {
		c.User = "neo4j"
	}
	if c.Database == "" {
		c.Database = "neo4j"
	}
	return c
}

// DB is a connection to Neo4j: one driver per process, safe for concurrent use.
type DB struct {
	driver    neo4j.DriverWithContext
	cfg       Config
	queryHook atomic.Pointer[func(name string, d time.Duration)]
	// FailFast: down is the error that found Neo4j unreachable (nil while
	// it answers), downUntil (unix nanoseconds) when the next probe may go,
	// probing whether one is under way.
	downUntil atomic.Int64
	down      atomic.Pointer[error]
	probing   atomic.Bool
	// reach shares one connectivity check (see stillReachable) among
	// every transaction waiting on it.
	reach singleflight.Group
}

// failingFast returns the error to fail with while Neo4j is known down:
// for FailFast after a transaction found it unreachable every transaction
// fails at once; then one at a time tries (a probe) while the others still
// fail, until one succeeds.
func (db *DB) failingFast() error {
	if db.cfg.FailFast <= 0 {
		return nil
	}
	e := db.down.Load()
	if e == nil {
		return nil
	}
	if time.Now().UnixNano() >= db.downUntil.Load() && db.probing.CompareAndSwap(false, true) {
		return nil // this one is the probe
	}
	return *e
}

// Down reports whether Neo4j is known unreachable now: transactions but a
// probe fail at once (always false without FailFast).
func (db *DB) Down() bool { return db.cfg.FailFast > 0 && db.down.Load() != nil }

// observe updates what the DB knows of Neo4j after a transaction or a
// Ping.
func (db *DB) observe(err error) {
	if db.cfg.FailFast <= 0 {
		return
	}
	switch ilgraph.ErrorCode(err) {
	case "":
		db.down.Store(nil)
	case ilgraph.EUNAVAILABLE:
		db.downUntil.Store(time.Now().Add(db.cfg.FailFast).UnixNano())
		db.down.Store(&err)
	}
	db.probing.Store(false)
}

// unreachableCause is the cause with which watch cancels a transaction
// whose Neo4j a connectivity check found unreachable: that check's error.
type unreachableCause struct{ err error }

func (u *unreachableCause) Error() string { return u.err.Error() }

// watch bounds a transaction while Neo4j goes down. The driver retries a
// transaction for RetryTime and then sleeps out its last back-off (up to
// 1.2 × 2^k s) before the last attempt, and FailFast only starts once a
// transaction has failed: so in the first seconds of an outage every
// request waited 2.4–3.6 s (RetryTime 2 s). With FailFast on, a transaction
// still running after FailFast checks, once, that Neo4j can be reached
// (one check shared by every transaction waiting); if a connection cannot
// even be opened, the transaction is cancelled with that error and
// FailFast starts at once. A check that merely takes long (a busy pool, a
// Neo4j that is starting) proves nothing and cancels nothing, so slow but
// healthy work is never cut short. It returns the context to run the
// transaction under and a function to call when it is done.
func (db *DB) watch(ctx context.Context) (context.Context, func()) {
	if db.cfg.FailFast <= 0 {
		return ctx, func() {}
	}
	tctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(db.cfg.FailFast, func() {
		if err := db.stillReachable(tctx); err != nil {
			db.observe(err)
			cancel(&unreachableCause{err})
		}
	})
	return tctx, func() { t.Stop(); cancel(nil) }
}

// stillReachable opens a connection to Neo4j (sharing a check under way)
// and returns an UNAVAILABLE error only when that fails on the network:
// refused, reset, no route. Anything else, a timeout included, is nil, as
// is ctx ending first.
func (db *DB) stillReachable(ctx context.Context) error {
	ch := db.reach.DoChan("", func() (any, error) {
		timeout := db.cfg.ConnectTimeout
		if timeout <= 0 {
			timeout = 5 * time.Second
		}
		pctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		err := db.driver.VerifyConnectivity(pctx)
		var netErr net.Error
		if err != nil && pctx.Err() == nil && (neo4j.IsConnectivityError(err) || errors.As(err, &netErr)) {
			return nil, unavailable(err, db.cfg.URI)
		}
		return nil, nil
	})
	select {
	case r := <-ch:
		return r.Err
	case <-ctx.Done():
		return nil
	}
}

// SetQueryHook sets a function called once per transaction sent to Neo4j
// (for metrics, and for tests that count round trips); nil removes it.
func (db *DB) SetQueryHook(fn func(name string, d time.Duration)) {
	if fn == nil {
		db.queryHook.Store(nil)
		return
	}
	db.queryHook.Store(&fn)
}

// Open creates the driver and checks that Neo4j answers.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	db, err := Connect(cfg)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Connect creates the driver without checking that Neo4j answers: the
// driver connects on first use.
func Connect(cfg Config) (*DB, error) {
	auth := neo4j.NoAuth()
	if cfg.User != "" || cfg.Password != "" {
		auth = neo4j.BasicAuth(cfg.User, cfg.Password, "")
	}
	driver, err := neo4j.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
		c.MaxConnectionPoolSize = cfg.MaxPoolSize
		if c.MaxConnectionPoolSize <= 0 {
			c.MaxConnectionPoolSize = DefaultMaxPoolSize
		}
		c.ConnectionAcquisitionTimeout = cfg.AcquireTimeout
		if c.ConnectionAcquisitionTimeout <= 0 {
			c.ConnectionAcquisitionTimeout = DefaultAcquireTimeout
		}
		c.SocketConnectTimeout = cfg.ConnectTimeout
		if c.SocketConnectTimeout <= 0 {
			c.SocketConnectTimeout = 5 * time.Second
		}
		c.MaxTransactionRetryTime = cfg.RetryTime
		if c.MaxTransactionRetryTime <= 0 {
			c.MaxTransactionRetryTime = 30 * time.Second
		}
	})
	if err != nil {
		return nil, ilgraph.WrapError(ilgraph.EINVALID, err, "bad Neo4j settings for %s", cfg.URI)
	}
	return &DB{driver: driver, cfg: cfg}, nil
}

// Close releases the driver.
func (db *DB) Close() error { return db.driver.Close(context.Background()) }

// Ping checks that Neo4j answers and the credentials work.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.driver.VerifyConnectivity(ctx); err != nil {
		err = unavailable(err, db.cfg.URI)
		db.observe(err)
		return err
	}
	// A Ping that succeeds does not end FailFast: a starting Neo4j answers
	// it before its database is online, and transactions would then wait.
	// The next probe transaction that succeeds ends it.
	return nil
}

// The messages of the errors below are what an API client reads: a short
// statement with no address, query name or advice. The details — the
// address, what to do about it, the driver's own message — are in the
// cause (Err), which the API logs with the request id and the command line
// prints after the message.

func unavailable(err error, uri string) error {
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) && ne.Code == "Neo.ClientError.Security.Unauthorized" {
		return ilgraph.WrapError(ilgraph.EUNAVAILABLE,
			fmt.Errorf("Neo4j at %s refused the credentials (check NEO4J_USER and NEO4J_PASSWORD): %w", uri, err),
			"the database is unavailable")
	}
	return ilgraph.WrapError(ilgraph.EUNAVAILABLE,
		fmt.Errorf("Neo4j at %s is unreachable (start one with scripts/neo4j start, or set NEO4J_URI): %w", uri, err),
		"the database is unreachable")
}

// timedOut and cancelled are the errors of work whose context ended.
func timedOut(err error, what string) error {
	return ilgraph.WrapError(ilgraph.ETIMEOUT, fmt.Errorf("%s: %w", what, err), "the request took longer than its time limit")
}

func cancelled(err error, what string) error {
	return ilgraph.WrapError(ilgraph.ETIMEOUT, fmt.Errorf("%s: %w", what, err), "the request was cancelled")
}

// wrapCtx is wrap for an error of work done under ctx: when ctx has expired
// the driver reports it in several ways, all of which mean a timeout.
func (db *DB) wrapCtx(ctx context.Context, err error, what string) error {
	var ie *ilgraph.Error
	if errors.As(err, &ie) {
		return err
	}
	// The driver may fail on a socket deadline taken from ctx a moment
	// before ctx itself reports that it expired: look at the deadline too.
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) || ctx.Err() == context.DeadlineExceeded {
		return timedOut(err, what)
	}
	if ctx.Err() == context.Canceled {
		return cancelled(err, what)
	}
	return db.wrap(err, what)
}

// wrap turns driver errors into coded errors.
func (db *DB) wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	// A transaction retried until its time ran out: what matters is why
	// the last attempt failed (Neo4j unreachable, most often).
	var limit *neo4j.TransactionExecutionLimit
	if errors.As(err, &limit) && len(limit.Errors) > 0 {
		if last := db.wrap(limit.Errors[len(limit.Errors)-1], what); ilgraph.ErrorCode(last) != ilgraph.EINTERNAL {
			return last
		}
	}
	var ie *ilgraph.Error
	if errors.As(err, &ie) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return timedOut(err, what)
	}
	if errors.Is(err, context.Canceled) {
		return cancelled(err, what)
	}
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) {
		if ne.Code == "Neo.ClientError.Transaction.TransactionTimedOut" || ne.Code == "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration" {
			return ilgraph.WrapError(ilgraph.ETIMEOUT, fmt.Errorf("%s: Neo4j transaction timed out: %w", what, err), "the database took longer than its time limit")
		}
		if ne.Code == "Neo.ClientError.Security.Unauthorized" {
			return unavailable(err, db.cfg.URI)
		}
		return ilgraph.WrapError(ilgraph.EINTERNAL, err, "%s failed", what)
	}
	// No connection within the acquisition timeout is a connectivity
	// error too: the pool is sized above the API's admission bounds, so it
	// means, most likely, a Neo4j that accepts connections and does not
	// answer (one that is starting).
	var netErr net.Error
	if neo4j.IsConnectivityError(err) || errors.As(err, &netErr) {
		return unavailable(err, db.cfg.URI)
	}
	if neo4j.IsRetryable(err) {
		return unavailable(err, db.cfg.URI)
	}
	return ilgraph.WrapError(ilgraph.EINTERNAL, err, "%s failed", what)
}

func (db *DB) session(ctx context.Context, mode neo4j.AccessMode) neo4j.SessionWithContext {
	return db.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: db.cfg.Database, AccessMode: mode})
}

// read runs work in a read transaction (routed to readers in a cluster).
func read[T any](ctx context.Context, db *DB, what string, work func(tx neo4j.ManagedTransaction) (T, error)) (T, error) {
	return transact(ctx, db, what, neo4j.AccessModeRead, func(ctx context.Context, s neo4j.SessionWithContext) (T, error) {
		return neo4j.ExecuteRead(ctx, s, work)
	})
}

// readOnce runs one small read query as an auto-commit transaction: one
// round trip (RUN and PULL sent together) where a managed transaction takes
// two (BEGIN and RUN, then COMMIT) — for the reads made on every request,
// such as the corpus version. The driver does not retry an auto-commit
// transaction, so one that fails in a way a retry may mend (a leader
// switch, a transient error) is run again as a managed read, which it
// retries.
func readOnce(ctx context.Context, db *DB, what, query string, params map[string]any) ([]*neo4j.Record, error) {
	return transact(ctx, db, what, neo4j.AccessModeRead, func(ctx context.Context, s neo4j.SessionWithContext) ([]*neo4j.Record, error) {
		res, err := s.Run(ctx, query, params)
		var recs []*neo4j.Record
		if err == nil {
			recs, err = records(ctx, res)
		}
		if err != nil && neo4j.IsRetryable(err) && ctx.Err() == nil {
			return neo4j.ExecuteRead(ctx, s, func(tx neo4j.ManagedTransaction) ([]*neo4j.Record, error) {
				return collect(ctx, tx, query, params)
			})
		}
		return recs, err
	})
}

// write runs work in a write transaction. Work must be idempotent: the driver
// retries it on transient errors.
func write[T any](ctx context.Context, db *DB, what string, work func(tx neo4j.ManagedTransaction) (T, error)) (T, error) {
	return transact(ctx, db, what, neo4j.AccessModeWrite, func(ctx context.Context, s neo4j.SessionWithContext) (T, error) {
		return neo4j.ExecuteWrite(ctx, s, work)
	})
}

// transact runs run (a managed transaction, or an auto-commit one) in a
// session of the given mode: failing at once while Neo4j is known down,
// watched while it runs, its error coded and observed.
func transact[T any](ctx context.Context, db *DB, what string, mode neo4j.AccessMode, run func(context.Context, neo4j.SessionWithContext) (T, error)) (T, error) {
	var zero T
	if err := db.failingFast(); err != nil {
		return zero, err
	}
	tctx, done := db.watch(ctx)
	defer done()
	s := db.session(tctx, mode)
	defer s.Close(context.Background())
	start := time.Now()
	v, err := run(tctx, s)
	db.hook(what, start)
	if err != nil {
		var u *unreachableCause
		if errors.As(context.Cause(tctx), &u) && ctx.Err() == nil {
			return zero, u.err
		}
		err = db.wrapCtx(ctx, err, what)
		db.observe(err)
		return zero, err
	}
	db.observe(nil)
	return v, nil
}

func (db *DB) hook(what string, start time.Time) {
	if fn := db.queryHook.Load(); fn != nil {
		(*fn)(what, time.Since(start))
	}
}

// collect runs one query in tx and returns its records.
func collect(ctx context.Context, tx neo4j.ManagedTransaction, query string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return nil, err
	}
	return records(ctx, res)
}

// records reads every record of res, as res.Collect does, into a slice
// that grows from empty: Collect starts one of 1,024 (8 KB), about a
// fifth of what a case by id allocated in all, for reads of one
// row such as the corpus version on every request.
func records(ctx context.Context, res neo4j.ResultWithContext) ([]*neo4j.Record, error) {
	recs := []*neo4j.Record{}
	for res.Next(ctx) {
		recs = append(recs, res.Record())
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	return recs, nil
}

// Counters sums what write queries changed.
type Counters struct {
	NodesCreated, NodesDeleted                 int
	RelationshipsCreated, RelationshipsDeleted int
	PropertiesSet                              int
}

// Add adds o to c.
func (c *Counters) Add(o Counters) {
	c.NodesCreated += o.NodesCreated
	c.NodesDeleted += o.NodesDeleted
	c.RelationshipsCreated += o.RelationshipsCreated
	c.RelationshipsDeleted += o.RelationshipsDeleted
	c.PropertiesSet += o.PropertiesSet
}

// exec runs one write query in tx and returns what it changed.
func exec(ctx context.Context, tx neo4j.ManagedTransaction, query string, params map[string]any) (Counters, error) {
	res, err := tx.Run(ctx, query, params)
	if err != nil {
		return Counters{}, err
	}
	sum, err := res.Consume(ctx)
	if err != nil {
		return Counters{}, err
	}
	c := sum.Counters()
	return Counters{
		NodesCreated: c.NodesCreated(), NodesDeleted: c.NodesDeleted(),
		RelationshipsCreated: c.RelationshipsCreated(), RelationshipsDeleted: c.RelationshipsDeleted(),
		PropertiesSet: c.PropertiesSet(),
	}, nil
}

func (c Counters) String() string {
	return fmt.Sprintf("+%d/-%d nodes, +%d/-%d relationships, %d properties set",
		c.NodesCreated, c.NodesDeleted, c.RelationshipsCreated, c.RelationshipsDeleted, c.PropertiesSet)
}
