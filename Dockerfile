# syntax=docker/dockerfile:1

# Build a static binary: no cgo, no paths or symbols from the build machine.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/anchor-review .

# distroless/static: CA certificates and tzdata, no shell, no package manager.
# The default (non-":nonroot") tag runs as root on purpose: GitHub runs
# container actions as root and mounts the workspace and GITHUB_OUTPUT files
# owned by root, so there is no USER line and no WORKDIR (the runner sets it).
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/anchor-review /anchor-review
ENTRYPOINT ["/anchor-review"]
