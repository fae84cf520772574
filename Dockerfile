# syntax=docker/dockerfile:1
#
# plagd container image: a static binary on distroless, running as a non-root user.
#
#   docker build -t plagd:dev .          (or: make docker)
#   docker run --rm -e PLAGD_DATABASE_URL=postgres://... -p 127.0.0.1:8080:8080 plagd:dev
#
# docker-compose.yml runs it with PostgreSQL. The image has no shell, curl or
# wget, so it declares no HEALTHCHECK: probe http://<container>:8080/healthz
# (liveness) and /readyz (readiness) from outside (a Kubernetes httpGet probe,
# a load balancer, or the monitoring that scrapes /metrics).

# ---- build ----------------------------------------------------------------
# Only the product, cmd/plagd: the laboratory (cmd/plagd-lab: bench, gen,
# extract-eval) is a developer's tool and stays out of the image.
FROM golang:1.26-bookworm AS build
WORKDIR /src
# dependencies first, so that source edits reuse this layer
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/plagd ./cmd/plagd \
 && mkdir -p /out/data

# ---- runtime --------------------------------------------------------------
# static-debian12:nonroot: CA certificates, tzdata, /etc/passwd with the user
# nonroot (uid/gid 65532); no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/plagd /plagd
COPY configs/plagd.yaml /etc/plagd/plagd.yaml
# the index directory, owned by the runtime user (COPY --chown also applies to
# the destination directory it creates); a named volume mounted here is
# initialised by Docker with this content and ownership
COPY --from=build --chown=65532:65532 /out/data /var/lib/plagd
# container defaults: index in the volume, HTTP reachable from outside the
# container (publish the port to choose who can reach it); the compiled PDF
# engine is kept in the volume too, so that only the first start of a new
# image compiles it (about 5 s; docs/EXTRACTION.md)
ENV PLAGD_DATA_DIR=/var/lib/plagd \
    PLAGD_HTTP_LISTEN=0.0.0.0:8080 \
    PLAGD_PDFIUM_CACHE=/var/lib/plagd/pdfium-cache
USER 65532:65532
VOLUME ["/var/lib/plagd"]
EXPOSE 8080
ENTRYPOINT ["/plagd"]
CMD ["serve", "--config", "/etc/plagd/plagd.yaml"]
