/**
 * Examples of the OpenAPI document: real responses of this gateway serving the bundled sample
 * (`snapshots/`, `npm run snapshots:generate -- --seed 1 --scale small`), captured once and committed
 * here. Committed examples keep the document independent of the data a gateway has loaded; the
 * simpler alternative of reading `snapshots/` at start-up would tie it to files a deployment may not
 * ship. The key-state errors (disabled, expired, forbidden, quota) come from the same run with a keys
 * file holding such example keys. test/http/openapi.test.ts checks that every example matches its
 * schema and that the data values still appear in the bundled sample.
 */
import type {
  ErrorEnvelope,
  HealthResponse,
  PoolResponse,
  PoolSearchRequest,
  PoolSearchResponse,
  ProtocolsResponse,
  ReadinessResponse,
  SingleChainTokenListRequest,
  SingleChainTokenListResponse,
  SingleChainTokenResponse,
  SingleChainTokenSearchRequest,
  SingleChainTokenSearchResponse,
  TokenBasketResponse,
  TokenBasketsResponse,
  TokenListRequest,
  TokenListResponse,
  TokenPriceResponse,
  TokenPricesRequest,
  TokenPricesResponse,
  TokensByAddressResponse,
  TokenSearchRequest,
  TokenSearchResponse,
} from "../api/wire.js";
import type { ErrorCode } from "../api/errors.js";

export const TOKEN_LIST_REQUEST_EXAMPLE = { config: { limit: 2 }, filters: { chainIds: [1, 8453] } } satisfies TokenListRequest;

/** The answer to TOKEN_LIST_REQUEST_EXAMPLE. */
export const TOKEN_LIST_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-21T06:56:46.186Z",
  path: "/v1/tokens",
  traceId: "778e1684-5642-4d62-b304-9964a93d52d3",
  data: {
    tokens: [
      {
        addresses: [
          { chainId: 1, address: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48" },
          { chainId: 8453, address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" },
        ],
        symbol: "USDC",
        name: "USD Coin",
        logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
        chainIds: [1, 8453],
      },
      {
        addresses: [
          { chainId: 1, address: "0xdac17f958d2ee523a2206206994597c13d831ec7" },
          { chainId: 8453, address: "0xfde4c96c8593536e31f229ea8f37b2ada2699bb2" },
        ],
        symbol: "USDT",
        name: "Tether USD",
        logoUrl: "https://assets.coingecko.com/coins/images/325/large/Tether.png",
        chainIds: [1, 8453],
      },
    ],
    nextCursor: "AeziOvcXLZNlKtxyfgAAAAJB0QA08-UeuAAEVVNEVAvw3zn7difZNu7AfA",
  },
} satisfies TokenListResponse;

export const POOL_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-21T06:56:46.205Z",
  path: "/v1/pools/8453/0x5cd316158089410cb926b5bc3295e1b06b2a0657",
  traceId: "070ef7c2-7e2f-4c46-baab-e891959e3434",
  data: {
    pool: {
      chainId: 8453,
      address: "0x5cd316158089410cb926b5bc3295e1b06b2a0657",
      createdAtTimestamp: 1752904767,
      feeTier: { feeTierPercentage: 0.05, isDynamic: false },
      tokens: [
        {
          chainId: 8453,
          address: "0x4200000000000000000000000000000000000006",
          decimals: 18,
          name: "Wrapped Ether",
          symbol: "WETH",
          logoUrl: "https://assets.coingecko.com/coins/images/2518/large/weth.png",
        },
        {
          chainId: 8453,
          address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
          decimals: 6,
          name: "USD Coin",
          symbol: "USDC",
          logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
        },
      ],
      protocol: {
        id: "uniswap-v3",
        name: "Uniswap V3",
        logoUrl: "https://icons.llamao.fi/icons/protocols/uniswap-v3?w=48&h=48",
        url: "https://app.uniswap.org",
      },
      type: "V3",
      stats: {
        stats24h: {
          feesUsd: 1934.56,
          swapVolumeUsd: 3869127.28,
          yield: 0.982455,
          netInflowUsd: -390978,
          liquidityVolumeUsd: 1693296.14,
        },
        stats7d: {
          feesUsd: 16522.99,
          swapVolumeUsd: 33045976.09,
          yield: 1.19873,
          netInflowUsd: -589233.4,
          liquidityVolumeUsd: 9570799.63,
        },
        stats30d: {
          feesUsd: 49393.49,
          swapVolumeUsd: 98786981.9,
          yield: 0.836139,
          netInflowUsd: 1476380.23,
          liquidityVolumeUsd: 54016326.05,
        },
        stats90d: {
          feesUsd: 118681.81,
          swapVolumeUsd: 237363617.99,
          yield: 0.669687,
          netInflowUsd: -12194300.94,
          liquidityVolumeUsd: 119044558.17,
        },
      },
      balance: {
        totalValueLockedUsd: 71872472.38,
        tokens: [
          {
            amount: 5225.10398524,
            amountUsd: 15833810.26,
            token: {
              chainId: 8453,
              address: "0x4200000000000000000000000000000000000006",
              decimals: 18,
              name: "Wrapped Ether",
              symbol: "WETH",
              logoUrl: "https://assets.coingecko.com/coins/images/2518/large/weth.png",
            },
          },
          {
            amount: 55864086.8486,
            amountUsd: 56038662.12,
            token: {
              chainId: 8453,
              address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
              decimals: 6,
              name: "USD Coin",
              symbol: "USDC",
              logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
            },
          },
        ],
      },
      metadata: {
        latestSqrtPriceX96: "4354590351762683502214174",
        tickSpacing: 10,
        latestTick: "-196187",
        positionManagerAddress: "0x03a520b32c04bf3beef7beb72e919cf822ed34f1",
      },
    },
  },
} satisfies PoolResponse;

/** USDC against the native asset on Base; `AUTO` shows WETH as ETH since side B names the all-zero address. */
export const POOL_SEARCH_REQUEST_EXAMPLE = {
  tokensA: [{ chainId: 8453, address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913" }],
  tokensB: [{ chainId: 8453, address: "0x0000000000000000000000000000000000000000" }],
  config: { limit: 1, orderBy: { field: "tvl", direction: "desc" } },
} satisfies PoolSearchRequest;

/** The answer to POOL_SEARCH_REQUEST_EXAMPLE. */
export const POOL_SEARCH_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:31:37.300Z",
  path: "/v1/pools/search",
  traceId: "50fe13f2-ff53-4a71-9758-e4c1e3878743",
  data: {
    pools: [
      {
        chainId: 8453,
        address: "0x5cd316158089410cb926b5bc3295e1b06b2a0657",
        createdAtTimestamp: 1752904767,
        feeTier: {
          feeTierPercentage: 0.05,
          isDynamic: false,
        },
        tokens: [
          {
            chainId: 8453,
            address: "0x0000000000000000000000000000000000000000",
            decimals: 18,
            name: "Ether",
            symbol: "ETH",
            logoUrl: "https://assets.coingecko.com/coins/images/279/large/ethereum.png",
          },
          {
            chainId: 8453,
            address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
            decimals: 6,
            name: "USD Coin",
            symbol: "USDC",
            logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
          },
        ],
        protocol: {
          id: "uniswap-v3",
          name: "Uniswap V3",
          logoUrl: "https://icons.llamao.fi/icons/protocols/uniswap-v3?w=48&h=48",
          url: "https://app.uniswap.org",
        },
        type: "V3",
        stats: {
          stats24h: {
            feesUsd: 1934.56,
            swapVolumeUsd: 3869127.28,
            yield: 0.982455,
            netInflowUsd: -390978,
            liquidityVolumeUsd: 1693296.14,
          },
          stats7d: {
            feesUsd: 16522.99,
            swapVolumeUsd: 33045976.09,
            yield: 1.19873,
            netInflowUsd: -589233.4,
            liquidityVolumeUsd: 9570799.63,
          },
          stats30d: {
            feesUsd: 49393.49,
            swapVolumeUsd: 98786981.9,
            yield: 0.836139,
            netInflowUsd: 1476380.23,
            liquidityVolumeUsd: 54016326.05,
          },
          stats90d: {
            feesUsd: 118681.81,
            swapVolumeUsd: 237363617.99,
            yield: 0.669687,
            netInflowUsd: -12194300.94,
            liquidityVolumeUsd: 119044558.17,
          },
        },
        balance: {
          totalValueLockedUsd: 71872472.38,
          tokens: [
            {
              amount: 5225.10398524,
              amountUsd: 15833810.26,
              token: {
                chainId: 8453,
                address: "0x0000000000000000000000000000000000000000",
                decimals: 18,
                name: "Ether",
                symbol: "ETH",
                logoUrl: "https://assets.coingecko.com/coins/images/279/large/ethereum.png",
              },
            },
            {
              amount: 55864086.8486,
              amountUsd: 56038662.12,
              token: {
                chainId: 8453,
                address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
                decimals: 6,
                name: "USD Coin",
                symbol: "USDC",
                logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
              },
            },
          ],
        },
        metadata: {
          latestSqrtPriceX96: "4354590351762683502214174",
          tickSpacing: 10,
          latestTick: "-196187",
          positionManagerAddress: "0x03a520b32c04bf3beef7beb72e919cf822ed34f1",
        },
      },
    ],
    filters: {
      minimumTotalValueLockedUsd: 0,
      protocols: [],
      blockedProtocols: [],
      poolTypes: [],
      blockedPoolTypes: [],
    },
    nextCursor: "AgAA7OI697cHhZfxKUKLQZEiv2GFHrgAACEFACoweDVjZDMxNjE1ODA4OTQxMGNiOTI2YjViYzMyOTVlMWIwNmIyYTA2NTeDFmIWhuKjKLw41AY",
  },
} satisfies PoolSearchResponse;

export const PROTOCOLS_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-21T06:56:46.215Z",
  path: "/v1/protocols",
  traceId: "fb217c19-b900-4eec-930b-4165b44c0e47",
  data: {
    protocols: [
      {
        id: "aerodrome-slipstream",
        name: "Aerodrome Slipstream",
        logoUrl: "https://icons.llamao.fi/icons/protocols/aerodrome-slipstream?w=48&h=48",
        url: "https://aerodrome.finance",
      },
      {
        id: "hyperswap-v2",
        name: "HyperSwap V2",
        logoUrl: "https://icons.llamao.fi/icons/protocols/hyperswap-v2?w=48&h=48",
        url: "https://hyperswap.exchange",
      },
      {
        id: "hyperswap-v3",
        name: "HyperSwap V3",
        logoUrl: "https://icons.llamao.fi/icons/protocols/hyperswap-v3?w=48&h=48",
        url: "https://hyperswap.exchange",
      },
      {
        id: "kittenswap-algebra",
        name: "KittenSwap Algebra",
        logoUrl: "https://icons.llamao.fi/icons/protocols/kittenswap-algebra?w=48&h=48",
        url: "https://kittenswap.finance",
      },
      {
        id: "nuri-exchange",
        name: "Nuri Exchange",
        logoUrl: "https://icons.llamao.fi/icons/protocols/nuri-exchange?w=48&h=48",
        url: "https://www.nuri.exchange",
      },
      {
        id: "pancakeswap-v3",
        name: "PancakeSwap V3",
        logoUrl: "https://icons.llamao.fi/icons/protocols/pancakeswap-v3?w=48&h=48",
        url: "https://pancakeswap.finance",
      },
      {
        id: "quickswap-v4",
        name: "QuickSwap V4",
        logoUrl: "https://icons.llamao.fi/icons/protocols/quickswap-v4?w=48&h=48",
        url: "https://quickswap.exchange",
      },
      {
        id: "scribe-exchange",
        name: "Scribe Exchange",
        logoUrl: "https://icons.llamao.fi/icons/protocols/scribe-exchange?w=48&h=48",
        url: "https://scribe.exchange",
      },
      {
        id: "sushiswap-v2",
        name: "SushiSwap V2",
        logoUrl: "https://icons.llamao.fi/icons/protocols/sushiswap-v2?w=48&h=48",
        url: "https://www.sushi.com",
      },
      {
        id: "uniswap-v2",
        name: "Uniswap V2",
        logoUrl: "https://icons.llamao.fi/icons/protocols/uniswap-v2?w=48&h=48",
        url: "https://app.uniswap.org",
      },
      {
        id: "uniswap-v3",
        name: "Uniswap V3",
        logoUrl: "https://icons.llamao.fi/icons/protocols/uniswap-v3?w=48&h=48",
        url: "https://app.uniswap.org",
      },
      {
        id: "uniswap-v4",
        name: "Uniswap V4",
        logoUrl: "https://icons.llamao.fi/icons/protocols/uniswap-v4?w=48&h=48",
        url: "https://app.uniswap.org",
      },
      {
        id: "zebra-v2",
        name: "Zebra V2",
        logoUrl: "https://icons.llamao.fi/icons/protocols/zebra-v2?w=48&h=48",
        url: "https://zebra.xyz",
      },
    ],
  },
} satisfies ProtocolsResponse;

export const HEALTH_RESPONSE_EXAMPLE = { status: "ok" } satisfies HealthResponse;

export const READINESS_RESPONSE_EXAMPLE = {
  ready: true,
  version: "e5864ad8ba2f",
  chains: [130, 1, 999, 8453, 534352, 9745, 143],
  quotaStore: { kind: "redis", state: "connected", onFailure: "open" },
} satisfies ReadinessResponse;

/** One response per error code that a request can provoke on the sample data. */
export const ERROR_EXAMPLES: Partial<Record<ErrorCode, ErrorEnvelope>> = {
  INVALID_BLOCKCHAIN_ADDRESS: {
    statusCode: 400,
    timestamp: "2026-11-23T18:31:38.132Z",
    path: "/v1/pools/search",
    traceId: "300bab2d-7462-4752-846f-764683e94f8e",
    error: {
      code: "INVALID_BLOCKCHAIN_ADDRESS",
      title: "Invalid Parameters",
      message: "2 addresses are not valid in tokensA; use 0x followed by 40 hexadecimal digits.",
      details: "Token addresses are 0x + 40 hex digits, any letter case; the all-zero address is the native asset.",
      metadata: {
        invalidAddresses: [
          {
            address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda0291",
            reason: "not 0x followed by 40 hexadecimal digits",
          },
          {
            address: "weth",
            reason: "not 0x followed by 40 hexadecimal digits",
          },
        ],
        receivedCount: 3,
      },
    },
  },
  INVALID_BASKET_ID: {
    statusCode: 400,
    timestamp: "2026-11-23T18:31:38.814Z",
    path: "/v1/pools/search",
    traceId: "30ea528a-ba5a-438a-a4bb-f39a219736f1",
    error: {
      code: "INVALID_BASKET_ID",
      title: "Invalid Parameters",
      message: "There is no basket \"usd-stablecoin\"; GET /v1/tokens/baskets lists the baskets.",
      details: "Known basket ids: btc-pegged-tokens, eth-pegged-tokens, eur-stablecoins, hype-pegged-tokens, monad-pegged-tokens, usd-stablecoins, xau-stablecoins.",
      metadata: {
        basketId: "usd-stablecoin",
        supportedIds: [
          "btc-pegged-tokens",
          "eth-pegged-tokens",
          "eur-stablecoins",
          "hype-pegged-tokens",
          "monad-pegged-tokens",
          "usd-stablecoins",
          "xau-stablecoins",
        ],
      },
    },
  },
  INVALID_PROTOCOL_ID: {
    statusCode: 400,
    timestamp: "2026-11-23T18:31:39.171Z",
    path: "/v1/pools/search",
    traceId: "e3abebf3-009a-4919-aa33-ba144b98df86",
    error: {
      code: "INVALID_PROTOCOL_ID",
      title: "Invalid Parameters",
      message: "Not a protocol id: \"Uniswap V4\"; protocol ids are lowercase words joined by dashes, e.g. uniswap-v3.",
      details: "Protocol ids match ^[a-z0-9]+(-[a-z0-9]+)*$; GET /v1/protocols lists them.",
      metadata: {
        received: [
          "uniswap-v3",
          "Uniswap V4",
        ],
        invalidItems: [
          "Uniswap V4",
        ],
      },
    },
  },
  VALIDATION_ERROR: {
    statusCode: 400,
    timestamp: "2026-11-21T06:56:46.239Z",
    path: "/v1/tokens",
    traceId: "2e085661-56e5-42b4-9929-2c57f1588850",
    error: {
      code: "VALIDATION_ERROR",
      title: "Invalid Parameters",
      message: "Invalid parameter config.limit: limit must not be greater than 500.",
      details: "Expected number & Maximum<500> at config.limit.",
      metadata: {
        property: "config.limit",
        value: 501,
        constraints: { max: ["limit must not be greater than 500"] },
      },
    },
  },
  MALFORMED_JSON: {
    statusCode: 400,
    timestamp: "2026-11-21T06:56:46.247Z",
    path: "/v1/tokens",
    traceId: "6b9da3a6-7f08-4182-9d9f-a39c6862c6ce",
    error: {
      code: "MALFORMED_JSON",
      title: "Invalid Parameters",
      message: "The request body is not valid JSON; fix its syntax and retry.",
      details: "JSON.parse failed: Expected ',' or '}' after property value in JSON at position 23",
      metadata: { reason: "Expected ',' or '}' after property value in JSON at position 23" },
    },
  },
  UNSUPPORTED_CHAIN_ID: {
    statusCode: 400,
    timestamp: "2026-11-21T06:56:46.250Z",
    path: "/v1/tokens",
    traceId: "68fe2827-1214-42d8-b1f9-8e552fe0c2f5",
    error: {
      code: "UNSUPPORTED_CHAIN_ID",
      title: "Invalid Parameters",
      message: "Chain 10 is not supported; use one of 1, 130, 143, 999, 8453, 9745, 534352.",
      details: "Supported chain ids: 1, 130, 143, 999, 8453, 9745, 534352.",
      metadata: { chainId: 10, unsupportedIds: [10], supportedIds: [1, 130, 143, 999, 8453, 9745, 534352] },
    },
  },
  INVALID_POOL_ADDRESS: {
    statusCode: 400,
    timestamp: "2026-11-21T06:56:46.253Z",
    path: "/v1/pools/8453/0x5cd3161580",
    traceId: "efe21c3d-34ff-4175-9422-1a87cedc2e91",
    error: {
      code: "INVALID_POOL_ADDRESS",
      title: "Invalid Parameters",
      message: "\"0x5cd3161580\" is not a pool address; use 0x and 40 hex digits, or 0x and 64 hex digits for a V4 pool id.",
      details: "Pool addresses are 0x + 40 hex digits (contract) or 0x + 64 hex digits (V4 pool id), any letter case.",
      metadata: { liquidityPoolAddress: "0x5cd3161580" },
    },
  },
  INVALID_PAGINATION_CURSOR: {
    statusCode: 400,
    timestamp: "2026-11-21T06:56:46.257Z",
    path: "/v1/tokens",
    traceId: "f741e095-4edc-4088-91c1-1fa69befb69e",
    error: {
      code: "INVALID_PAGINATION_CURSOR",
      title: "Invalid Parameters",
      message: "The cursor is not valid for this query; start again without a cursor.",
      details: "The cursor was not issued by this gateway or was altered.",
      metadata: { receivedCursor: "bm90LWEtY3Vyc29y" },
    },
  },
  INVALID_REQUEST_FRAMING: {
    statusCode: 400,
    timestamp: "2026-11-23T18:40:12.518Z",
    path: "/v1/tokens",
    traceId: "3b0c2f4e-9d1a-4f7e-8a55-0c6f1e2d7b94",
    error: {
      code: "INVALID_REQUEST_FRAMING",
      title: "Bad Request",
      message: "The request has more than one Content-Length header; send exactly one.",
      details: "RFC 9112 §6.3: several Content-Length fields leave the body's length ambiguous.",
      metadata: { header: "content-length", values: ["2", "40"] },
    },
  },
  API_KEY_MISSING: {
    statusCode: 401,
    timestamp: "2026-11-21T06:56:46.264Z",
    path: "/v1/protocols",
    traceId: "ad65ded4-d974-48b4-b5b6-9e9eef0a07f4",
    error: {
      code: "API_KEY_MISSING",
      title: "Authentication Failed",
      message: "Send your API key in the Authorization header as \"Bearer <api-key>\".",
      details: "The request has no Authorization header (or it is empty); every /v1 data route requires HTTP bearer authentication.",
      metadata: { example: "Bearer <api-key>" },
    },
  },
  API_KEY_INVALID: {
    statusCode: 401,
    timestamp: "2026-11-21T06:56:46.268Z",
    path: "/v1/protocols",
    traceId: "3241c120-c8a5-47bd-a96c-259bcf390510",
    error: {
      code: "API_KEY_INVALID",
      title: "Authentication Failed",
      message: "Send the Authorization header as \"Bearer <api-key>\": the word Bearer, one space, then your key.",
      details: "Malformed Authorization header: the scheme is case-sensitive: write \"Bearer\" (capital B, then lowercase), as in \"Bearer <api-key>\".",
      metadata: {
        reason: "the scheme is case-sensitive: write \"Bearer\" (capital B, then lowercase), as in \"Bearer <api-key>\"",
      },
    },
  },
  API_KEY_NOT_FOUND: {
    statusCode: 401,
    timestamp: "2026-11-21T06:56:46.275Z",
    path: "/v1/protocols",
    traceId: "f35572e7-3d7c-45e5-a8f6-a3c36ec23c5d",
    error: {
      code: "API_KEY_NOT_FOUND",
      title: "Authentication Failed",
      message: "The API key is not recognized; check that you are sending the complete key you were issued.",
      details: "No key record matches the SHA-256 of the presented key; metadata.receivedKey shows a masked form of what was received.",
      metadata: { receivedKey: "lgw_...def" },
    },
  },
  API_KEY_DISABLED: {
    statusCode: 403,
    timestamp: "2026-11-21T06:56:46.308Z",
    path: "/v1/protocols",
    traceId: "5936c60e-1103-4fcf-b761-fdaed5b18c97",
    error: {
      code: "API_KEY_DISABLED",
      title: "Authentication Failed",
      message: "This API key has been disabled; ask the gateway operator to re-enable it or issue you a new key.",
      details: "Key id \"partner-disabled\" has status \"disabled\" in the gateway's keys file.",
      metadata: {},
    },
  },
  API_KEY_EXPIRED: {
    statusCode: 403,
    timestamp: "2026-11-21T06:56:46.313Z",
    path: "/v1/protocols",
    traceId: "241fa835-3eea-43cb-9563-be0e9dd6c990",
    error: {
      code: "API_KEY_EXPIRED",
      title: "Authentication Failed",
      message: "This API key expired at 2025-01-01T00:00:00Z; ask the gateway operator to extend it or issue you a new key.",
      details: "Key id \"partner-expired\" has expiresAt 2025-01-01T00:00:00Z, which is not after the server time 2026-11-21T06:56:46.313Z.",
      metadata: { expiredAt: "2025-01-01T00:00:00Z" },
    },
  },
  API_KEY_FORBIDDEN: {
    statusCode: 403,
    timestamp: "2026-11-21T06:56:46.315Z",
    path: "/v1/protocols",
    traceId: "2db704bb-ab62-4f07-b413-c77c82a5873a",
    error: {
      code: "API_KEY_FORBIDDEN",
      title: "Forbidden",
      message: "This API key may not use the protocols route; ask the gateway operator to add \"protocols\" to the key's allowed routes.",
      details: "Key id \"partner-pools-only\" is restricted to the routes [pools].",
      metadata: { route: "protocols", allowedRoutes: ["pools"] },
    },
  },
  LIQUIDITY_POOL_NOT_FOUND: {
    statusCode: 404,
    timestamp: "2026-11-21T06:56:46.341Z",
    path: "/v1/pools/8453/0x0000000000000000000000000000000000000001",
    traceId: "bf99e588-721d-40c6-bfea-ef7efa6d5b1e",
    error: {
      code: "LIQUIDITY_POOL_NOT_FOUND",
      title: "Not Found",
      message: "No pool 0x0000000000000000000000000000000000000001 on chain 8453; check the address and chain id.",
      details: "The pool is not in the loaded snapshot of this chain.",
      metadata: { liquidityPoolAddress: "0x0000000000000000000000000000000000000001", chainId: 8453 },
    },
  },
  ROUTE_NOT_FOUND: {
    statusCode: 404,
    timestamp: "2026-11-21T06:56:46.349Z",
    path: "/v1/pool",
    traceId: "dd504a81-70aa-42f2-8981-e2bcf86f9c10",
    error: {
      code: "ROUTE_NOT_FOUND",
      title: "Route Not Found",
      message: "No route GET /v1/pool; see the API reference for the available routes.",
      details: "Routes: POST /v1/tokens, GET /v1/pools/{chainId}/{poolAddress}, GET /v1/protocols.",
      metadata: { method: "GET" },
    },
  },
  METHOD_NOT_ALLOWED: {
    statusCode: 405,
    timestamp: "2026-11-21T06:56:46.355Z",
    path: "/v1/tokens",
    traceId: "afdb83bd-2477-43c0-9e15-cd6b1ae384bd",
    error: {
      code: "METHOD_NOT_ALLOWED",
      title: "Method Not Allowed",
      message: "GET is not allowed on /v1/tokens; use POST.",
      details: "Allowed methods: POST.",
      metadata: { allowed: ["POST"] },
    },
  },
  PAYLOAD_TOO_LARGE: {
    statusCode: 413,
    timestamp: "2026-11-21T06:56:46.362Z",
    path: "/v1/tokens",
    traceId: "0ae8e46b-e09a-4287-81bc-0445b94c917d",
    error: {
      code: "PAYLOAD_TOO_LARGE",
      title: "Payload Too Large",
      message: "The request body is larger than the 65536 bytes allowed; send a smaller body.",
      details: "Bodies are limited to 65536 bytes (64 KiB).",
      metadata: { maxBytes: 65536 },
    },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    statusCode: 415,
    timestamp: "2026-11-21T06:56:46.375Z",
    path: "/v1/tokens",
    traceId: "a20d4c77-ec25-4b41-bed7-7a53ecd998c3",
    error: {
      code: "UNSUPPORTED_MEDIA_TYPE",
      title: "Unsupported Media Type",
      message: "Send the request body as JSON with the header Content-Type: application/json.",
      details: "Content-Type \"text/plain\" is not application/json.",
      metadata: { received: "text/plain" },
    },
  },
  RATE_LIMIT_EXCEEDED: {
    statusCode: 429,
    timestamp: "2026-11-21T06:56:46.395Z",
    path: "/v1/protocols",
    traceId: "d600214e-89b2-4835-a68a-8cfb41e058c8",
    error: {
      code: "RATE_LIMIT_EXCEEDED",
      title: "Rate Limit Exceeded",
      message: "This API key has used its 1 requests of the current window; retry in 14 seconds.",
      details: "Quotas are per key, in fixed windows; see the RateLimit-* response headers.",
      metadata: { retryAfterSeconds: 14 },
    },
  },
};

// ---------------------------------------------------------------- the token surface (api-extended.md §8-§9): the sample and snapshots/baskets.json

/** A multi-chain search ordered by relevance. */
export const TOKEN_SEARCH_REQUEST_EXAMPLE = {
  search: "usd",
  config: {
    limit: 2,
    orderBy: {
      field: "relevance",
    },
  },
  filters: {
    chainIds: [1, 8453],
  },
} satisfies TokenSearchRequest;

/** The answer to TOKEN_SEARCH_REQUEST_EXAMPLE. */
export const TOKEN_SEARCH_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:18.889Z",
  path: "/v1/tokens/search",
  traceId: "9a03fd5f-094f-4d79-9d36-0d02956a629c",
  data: {
    tokens: [
      {
        addresses: [
          {
            chainId: 1,
            address: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
          },
          {
            chainId: 8453,
            address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
          },
        ],
        symbol: "USDC",
        name: "USD Coin",
        logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
        chainIds: [1, 8453],
      },
      {
        addresses: [
          {
            chainId: 1,
            address: "0xdac17f958d2ee523a2206206994597c13d831ec7",
          },
          {
            chainId: 8453,
            address: "0xfde4c96c8593536e31f229ea8f37b2ada2699bb2",
          },
        ],
        symbol: "USDT",
        name: "Tether USD",
        logoUrl: "https://assets.coingecko.com/coins/images/325/large/Tether.png",
        chainIds: [1, 8453],
      },
    ],
    filters: {
      chainIds: [1, 8453],
      minimumTotalValuePooledUsd: 0,
      minimumSwapsCount: 0,
      minimumSwapVolumeUsd: 0,
      ignoreWrappedNative: false,
    },
    nextCursor: "AgAA7OI690iIiZNBUh32AAAAAgAAAAJB0QA08-UeuAAEVVNEVG1QtT4mqlU8mBi7yQ",
  },
} satisfies TokenSearchResponse;

/** The first two tokens of a chain. */
export const SINGLE_CHAIN_LIST_REQUEST_EXAMPLE = {
  config: {
    limit: 2,
  },
} satisfies SingleChainTokenListRequest;

/** The answer to SINGLE_CHAIN_LIST_REQUEST_EXAMPLE on chain 8453. */
export const SINGLE_CHAIN_LIST_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:19.006Z",
  path: "/v1/tokens/8453",
  traceId: "39caa3d6-5ece-412a-919a-b5d8f71e4260",
  data: {
    tokens: [
      {
        chainId: 8453,
        address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
        decimals: 6,
        name: "USD Coin",
        symbol: "USDC",
        logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
      },
      {
        chainId: 8453,
        address: "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf",
        decimals: 8,
        name: "Coinbase Wrapped BTC",
        symbol: "cbBTC",
        logoUrl: "https://assets.coingecko.com/coins/images/40143/large/cbbtc.webp",
      },
    ],
    nextCursor: "AgAA7OI69ykYCm7QcV3GAAAAAgAAAABBuw8B8IKPXAAqMHhjYmI3YzAwMDBhYjg4YjQ3M2IxZjVhZmQ5ZWY4MDg0NDBlZWQzM2Jm_up24tmoXExswiA6",
  },
} satisfies SingleChainTokenListResponse;

/** A single-chain search. */
export const SINGLE_CHAIN_SEARCH_REQUEST_EXAMPLE = {
  search: "usd",
  config: {
    limit: 2,
  },
} satisfies SingleChainTokenSearchRequest;

/** The answer to SINGLE_CHAIN_SEARCH_REQUEST_EXAMPLE on chain 8453. */
export const SINGLE_CHAIN_SEARCH_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:19.109Z",
  path: "/v1/tokens/8453/search",
  traceId: "230a94fc-ec84-497f-907f-240813b68380",
  data: {
    tokens: [
      {
        chainId: 8453,
        address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
        decimals: 6,
        name: "USD Coin",
        symbol: "USDC",
        logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
      },
      {
        chainId: 8453,
        address: "0xfde4c96c8593536e31f229ea8f37b2ada2699bb2",
        decimals: 6,
        name: "Tether USD",
        symbol: "USDT",
        logoUrl: "https://assets.coingecko.com/coins/images/325/large/Tether.png",
      },
    ],
    filters: {
      minimumTotalValuePooledUsd: 0,
      minimumSwapsCount: 0,
      minimumSwapVolumeUsd: 0,
      ignoreWrappedNative: false,
    },
    nextCursor: "AgAA7OI6915KTxZDaip5AAAAAgAAAABBsf_6cxmZmgAqMHhmZGU0Yzk2Yzg1OTM1MzZlMzFmMjI5ZWE4ZjM3YjJhZGEyNjk5YmIyQlJK6faizHzvrrj4",
  },
} satisfies SingleChainTokenSearchResponse;

/** GET /v1/tokens/0x833589fcd6edb6e08f4c7c32d4f71b54bda02913. */
export const TOKENS_BY_ADDRESS_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:19.351Z",
  path: "/v1/tokens/0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
  traceId: "b76d2b6a-234b-4c31-bac0-be2fcbe2ed6e",
  data: {
    tokens: [
      {
        chainId: 8453,
        address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
        decimals: 6,
        name: "USD Coin",
        symbol: "USDC",
        logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
      },
    ],
  },
} satisfies TokensByAddressResponse;

/** GET /v1/tokens/8453/0x833589fcd6edb6e08f4c7c32d4f71b54bda02913. */
export const SINGLE_CHAIN_TOKEN_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:19.557Z",
  path: "/v1/tokens/8453/0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
  traceId: "228a0cc6-4287-467f-9671-17d1185cbf5b",
  data: {
    token: {
      chainId: 8453,
      address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
      decimals: 6,
      name: "USD Coin",
      symbol: "USDC",
      logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
      totalValuePooledUsd: 692756783.72,
    },
  },
} satisfies SingleChainTokenResponse;

/** GET /v1/tokens/prices/8453/0x833589fcd6edb6e08f4c7c32d4f71b54bda02913/usd. */
export const TOKEN_PRICE_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:19.729Z",
  path: "/v1/tokens/prices/8453/0x833589fcd6edb6e08f4c7c32d4f71b54bda02913/usd",
  traceId: "fbd0e967-3d39-4675-94cf-12700444ff40",
  data: {
    price: 1.003125,
  },
} satisfies TokenPriceResponse;

/** Two tokens, the native asset among them. */
export const TOKEN_PRICES_REQUEST_EXAMPLE = {
  tokens: [
    {
      chainId: 8453,
      address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
    },
    {
      chainId: 1,
      address: "0x0000000000000000000000000000000000000000",
    },
  ],
} satisfies TokenPricesRequest;

/** The answer to TOKEN_PRICES_REQUEST_EXAMPLE. */
export const TOKEN_PRICES_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:19.904Z",
  path: "/v1/tokens/prices",
  traceId: "dde57820-7561-4984-9081-f37302680bc5",
  data: {
    prices: [
      {
        chainId: 8453,
        address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
        price: 1.003125,
      },
      {
        chainId: 1,
        address: "0x0000000000000000000000000000000000000000",
        price: 3004.234,
      },
    ],
  },
} satisfies TokenPricesResponse;

/** GET /v1/tokens/baskets?chainIds=1,8453&basketIds=btc-pegged-tokens. */
export const TOKEN_BASKETS_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:20.063Z",
  path: "/v1/tokens/baskets?chainIds=1,8453&basketIds=btc-pegged-tokens",
  traceId: "7c08f6de-1014-4ae5-ac4d-50db4d8936d1",
  data: {
    baskets: [
      {
        id: "btc-pegged-tokens",
        name: "BTC Pegged Tokens",
        description: "Tokens backed 1:1 by Bitcoin.",
        logoUrl: "https://cdn.jsdelivr.net/gh/hydric-org/token-baskets/assets/logos/btc-pegged-tokens.png",
        chainIds: [1, 8453],
        addresses: [
          {
            chainId: 1,
            address: "0x2260fac5e5542a773aa44f8cba9bf5d7af05f2c4",
          },
          {
            chainId: 1,
            address: "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf",
          },
          {
            chainId: 8453,
            address: "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf",
          },
        ],
        tokens: [
          {
            chainId: 1,
            address: "0x2260fac5e5542a773aa44f8cba9bf5d7af05f2c4",
            decimals: 8,
            name: "Wrapped BTC",
            symbol: "WBTC",
            logoUrl: "https://assets.coingecko.com/coins/images/7598/large/wrapped_bitcoin_wbtc.png",
          },
          {
            chainId: 8453,
            address: "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf",
            decimals: 8,
            name: "Coinbase Wrapped BTC",
            symbol: "cbBTC",
            logoUrl: "https://assets.coingecko.com/coins/images/40143/large/cbbtc.webp",
          },
          {
            chainId: 1,
            address: "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf",
            decimals: 8,
            name: "Coinbase Wrapped BTC",
            symbol: "cbBTC",
            logoUrl: "https://assets.coingecko.com/coins/images/40143/large/cbbtc.webp",
          },
        ],
      },
    ],
  },
} satisfies TokenBasketsResponse;

/** GET /v1/tokens/baskets/usd-stablecoins?chainIds=8453. */
export const TOKEN_BASKET_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:20.163Z",
  path: "/v1/tokens/baskets/usd-stablecoins?chainIds=8453",
  traceId: "a7153e4d-bf95-4ecd-87e3-4892888044b6",
  data: {
    basket: {
      id: "usd-stablecoins",
      name: "USD Stablecoins",
      description: "The most liquid USD stablecoins.",
      logoUrl: "https://cdn.jsdelivr.net/gh/hydric-org/token-baskets/assets/logos/usd-stablecoins.png",
      chainIds: [8453],
      addresses: [
        {
          chainId: 8453,
          address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
        },
        {
          chainId: 8453,
          address: "0xfde4c96c8593536e31f229ea8f37b2ada2699bb2",
        },
        {
          chainId: 8453,
          address: "0x50c5725949a6f0c72e6c4a641f24049a917db0cb",
        },
        {
          chainId: 8453,
          address: "0x5d3a1ff2b6bab83b63cd9ad0787074081a52ef34",
        },
      ],
      tokens: [
        {
          chainId: 8453,
          address: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
          decimals: 6,
          name: "USD Coin",
          symbol: "USDC",
          logoUrl: "https://assets.coingecko.com/coins/images/6319/large/usdc.png",
        },
        {
          chainId: 8453,
          address: "0xfde4c96c8593536e31f229ea8f37b2ada2699bb2",
          decimals: 6,
          name: "Tether USD",
          symbol: "USDT",
          logoUrl: "https://assets.coingecko.com/coins/images/325/large/Tether.png",
        },
        {
          chainId: 8453,
          address: "0x5d3a1ff2b6bab83b63cd9ad0787074081a52ef34",
          decimals: 18,
          name: "USDe",
          symbol: "USDe",
          logoUrl: "https://assets.coingecko.com/coins/images/33613/large/usde.png",
        },
        {
          chainId: 8453,
          address: "0x50c5725949a6f0c72e6c4a641f24049a917db0cb",
          decimals: 18,
          name: "Dai Stablecoin",
          symbol: "DAI",
          logoUrl: "https://assets.coingecko.com/coins/images/9956/large/Badge_Dai.png",
        },
      ],
    },
  },
} satisfies TokenBasketResponse;

/** GET /v1/tokens/baskets/9745/xau-stablecoins. */
export const CHAIN_TOKEN_BASKET_RESPONSE_EXAMPLE = {
  statusCode: 200,
  timestamp: "2026-11-23T18:48:20.303Z",
  path: "/v1/tokens/baskets/9745/xau-stablecoins",
  traceId: "ba67f6a2-0804-4294-9dbf-12d61434a707",
  data: {
    basket: {
      id: "xau-stablecoins",
      name: "Gold Stablecoins",
      description: "Tokens backed by physical gold (XAU).",
      logoUrl: "https://cdn.jsdelivr.net/gh/hydric-org/token-baskets/assets/logos/xau-stablecoins.png",
      chainIds: [9745],
      addresses: [
        {
          chainId: 9745,
          address: "0xe7b3cd6852ec105abd1d7c022bc4c54c49269d33",
        },
      ],
      tokens: [
        {
          chainId: 9745,
          address: "0xe7b3cd6852ec105abd1d7c022bc4c54c49269d33",
          decimals: 6,
          name: "XAU₮0",
          symbol: "XAU₮0",
          logoUrl: "https://static.liquiditydata.dev/tokens/9745/0xe7b3cd6852ec105abd1d7c022bc4c54c49269d33.png",
        },
      ],
    },
  },
} satisfies TokenBasketResponse;
