# The ilgraph API image for docker compose. The seeds ship inside it.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ilgraph ./cmd/ilgraph

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ilgraph /usr/local/bin/ilgraph
COPY seeds /seeds
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/ilgraph"]
CMD ["serve", "--addr", "0.0.0.0:8080"]
