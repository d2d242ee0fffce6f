# Switchboard's image: the static binary (CGO_ENABLED=0: the SQLite store is pure Go)
# on distroless's static base, run as its nonroot user, its data (the SQLite sessions,
# the sign-ins of remote servers) in the /data volume. docs/deploy.md runs it.
#
#   docker build -t switchboard --build-arg VERSION=$(git describe --tags --always) \
#     --build-arg REVISION=$(git rev-parse HEAD) .
#
# TestDockerfile (cmd/switchboard) checks this file's stages and runs the binary its
# build line makes as its CMD and HEALTHCHECK run it.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG REVISION=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" -o /out/switchboard ./cmd/switchboard
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot AS run
COPY --from=build /out/switchboard /usr/local/bin/switchboard
# /data owned by nonroot (65532), so that the volume Docker makes from it is too.
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME /data
EXPOSE 7300
# Beyond loopback serve needs a token ($SWITCHBOARD_TOKEN) or an identity provider.
ENTRYPOINT ["/usr/local/bin/switchboard"]
CMD ["serve", "--addr", "0.0.0.0:7300", "--data-dir", "/data"]
# The image has no curl: the binary asks /health itself.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/usr/local/bin/switchboard", "health", "--url", "http://127.0.0.1:7300"]
