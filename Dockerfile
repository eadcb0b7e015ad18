# clustersim's image for distributed load (docs/distributed.md "On Kubernetes"): `clustersim job` runs its pods
# with `run --target in-cluster --segment job/N …`. Build: docker build -t clustersim:0.1.0 .
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
COPY simulator ./simulator
COPY reports ./reports
COPY app ./app
COPY bench ./bench
RUN npx tsc -p tsconfig.json

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# the runtime needs no compiler: the build stage's dist is copied below (prepare would run tsc)
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY scenarios ./scenarios
USER node
ENTRYPOINT ["node", "dist/app/cli/main.js"]
