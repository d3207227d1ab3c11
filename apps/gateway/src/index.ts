// Public surface of @pits/gateway (for e2e tools and benchmarks): the factory and its configuration.
export { createGateway, SERVICE_VERSION, type Gateway, type GatewayDeps } from './create-gateway.js';
export { ConfigError, loadGatewayConfig, type GatewayConfig } from './config.js';
