package ilgraph

// The GraphQL executor in resolvers/ is generated from schema.graphqls by
// gqlgen (configuration in gqlgen.yml); the generated files are committed.
//go:generate go tool gqlgen generate --config gqlgen.yml
