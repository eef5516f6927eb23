package mcpserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ilgraph/ilgraph/explore"
	"github.com/ilgraph/ilgraph/mcpserver"
)

// TestDNSRebindingProtection: a loopback listener refuses a foreign Host
// unless AllowAnyHost (a reverse proxy on the same host).
func TestDNSRebindingProtection(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, anyHost := range []bool{false, true} {
		srv := httptest.NewServer(mcpserver.NewHandler(explore.New(nil, nil), mcpserver.Options{Logger: quiet(), AllowAnyHost: anyHost}))
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(initialize))
		req.Host = "incidents.example"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if forbidden := resp.StatusCode == http.StatusForbidden; forbidden == anyHost {
			t.Errorf("AllowAnyHost %v: HTTP %d", anyHost, resp.StatusCode)
		}
		srv.Close()
	}
}
