// The generic peer ilgraph's benchmark measures itself against: @neo4j/graphql
// (the Neo4j GraphQL Library) on Apollo Server, with type definitions over
// ilgraph's graph model (docs/graph-model.md), over the same Neo4j. It has no
// code of its own for any question: the library turns each GraphQL query into
// one Cypher query.
//
// Environment: NEO4J_URI (bolt://127.0.0.1:7687), NEO4J_USER and
// NEO4J_PASSWORD (empty: no authentication), NEO4J_DATABASE (neo4j),
// PEER_PORT (4100). It prints "ready" on standard output once it listens.
import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { Neo4jGraphQL } from "@neo4j/graphql";
import neo4j from "neo4j-driver";

const typeDefs = /* GraphQL */ `
  type Case @node(labels: ["Case"]) {
    id: ID!
    date: Date
    year: Int
    severity: String
    org: String
    org_slug: String
    title_en: String
    title_ko: String
    summary_en: String
    rootCause: [Cause!]! @relationship(type: "HAS_ROOT_CAUSE", direction: OUT)
    components: [Component!]! @relationship(type: "HAS_COMPONENT", direction: OUT)
    symptoms: [Symptom!]! @relationship(type: "HAS_SYMPTOM", direction: OUT)
    factors: [Factor!]! @relationship(type: "HAS_FACTOR", direction: OUT)
    domains: [Domain!]! @relationship(type: "IN_DOMAIN", direction: OUT)
    organization: [Organization!]! @relationship(type: "AT_ORG", direction: OUT)
  }

  type Cause @node(labels: ["Cause"]) {
    id: ID!
    en: String
    ko: String
    cases: [Case!]! @relationship(type: "HAS_ROOT_CAUSE", direction: IN)
  }

  type Component @node(labels: ["Component"]) {
    id: ID!
    en: String
    ko: String
    cases: [Case!]! @relationship(type: "HAS_COMPONENT", direction: IN)
  }

  type Symptom @node(labels: ["Symptom"]) {
    id: ID!
    en: String
    ko: String
    cases: [Case!]! @relationship(type: "HAS_SYMPTOM", direction: IN)
  }

  type Factor @node(labels: ["Factor"]) {
    id: ID!
    en: String
    ko: String
    cases: [Case!]! @relationship(type: "HAS_FACTOR", direction: IN)
  }

  type Domain @node(labels: ["Domain"]) {
    id: ID!
    en: String
    ko: String
    cases: [Case!]! @relationship(type: "IN_DOMAIN", direction: IN)
  }

  type Organization @node(labels: ["Organization"]) {
    id: ID!
    name: String
    cases: [Case!]! @relationship(type: "AT_ORG", direction: IN)
  }
`;

const uri = process.env.NEO4J_URI || "bolt://127.0.0.1:7687";
const password = process.env.NEO4J_PASSWORD || "";
const auth = password ? neo4j.auth.basic(process.env.NEO4J_USER || "neo4j", password) : undefined;
const driver = neo4j.driver(uri, auth);
const database = process.env.NEO4J_DATABASE || "neo4j";

const neoSchema = new Neo4jGraphQL({ typeDefs, driver });
const server = new ApolloServer({ schema: await neoSchema.getSchema() });
const { url } = await startStandaloneServer(server, {
  listen: { host: "127.0.0.1", port: Number(process.env.PEER_PORT || 4100) },
  context: async () => ({ sessionConfig: { database } }),
});
console.log("ready", url);

for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, async () => {
    await server.stop();
    await driver.close();
    process.exit(0);
  });
}
