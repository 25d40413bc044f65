# The servebench image the Kubernetes manifests of `servebench k8s` run (docs/kubernetes.md).
# Its entrypoint is the CLI, so a pod's args start with the subcommand: `run …`, `merge …`.
# Build: docker build -t REGISTRY/servebench:VERSION .

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the prepare script would build before the sources are copied; no dependency needs an install script.
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
# src/ imports nothing outside itself (npm run lint checks), so the CLI builds from src/ alone.
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# The uid and gid the manifests run as (runAsUser/fsGroup 10001): never root.
RUN groupadd --gid 10001 servebench && useradd --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin servebench
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
USER 10001:10001
ENTRYPOINT ["node", "/app/dist/src/cli/main.js"]
