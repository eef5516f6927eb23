package ilgraph

// The GraphQL executor in resolvers/ is generated from schema.graphqls by
// gqlgen (configuration in gqlgen.yml), then internal/gqlinline routes
// lists of terms through resolvers.marshalPlainList; the generated files
// are committed.
//go:generate go tool gqlgen generate --config gqlgen.yml
//go:generate go run ./internal/gqlinline resolvers/generated.go
