# Base images are pinned by digest (multi-arch index digests; Dependabot's
# docker ecosystem proposes updates). The tag beside each digest says what it
# was resolved from.

# Build a static binary: no cgo, no paths or symbols from the build machine.
FROM golang:1.26@sha256:3aff6657219a4d9c14e27fb1d8976c49c29fddb70ba835014f477e1c70636647 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
# VERSION is the release tag (release.yml passes it); empty falls back to the
# module's build info (see pkg/version).
ARG VERSION=""
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags="-s -w -X github.com/anchor-review/anchor-review/pkg/version.version=${VERSION}" \
    -o /out/anchor-review .

# distroless/static: CA certificates and tzdata, no shell, no package manager.
# The default (non-":nonroot") tag runs as root on purpose: GitHub runs
# container actions as root and mounts the workspace and GITHUB_OUTPUT files
# owned by root, so there is no USER line and no WORKDIR (the runner sets it).
FROM gcr.io/distroless/static-debian12@sha256:d75cdd72874d4790092fcb1b058493ecf6bb5bf2b2b897045b00ff01d91843f2
COPY --from=build /out/anchor-review /anchor-review
ENTRYPOINT ["/anchor-review"]
