package resolvers_test

import (
	"io"
	"log/slog"
	"net/url"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func urlQuery(s string) string { return url.QueryEscape(s) }
