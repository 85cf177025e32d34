import Core

// The cluster's protocol on Redis: every key and channel, and the Lua scripts that must run
// as one step. `ClusterDriver` sends them over `RedisLink`; nothing else names a key.

/// Redis keys and channels (the scripts below spell some of them out too).
enum ClusterKeys {
    static let codes = "bc:codes"
    /// Every node seen within the hour, scored by when (Unix milliseconds).
    static let nodes = "bc:nodes"
    static func nodeChannel(_ node: String) -> String { "bc:n:" + node }
    static func gameChannel(_ game: String) -> String { "bc:g:" + game }
    static func gameStream(_ game: String) -> String { "bc:s:" + game }
    static func alive(_ node: String) -> String { "bc:alive:" + node }
    static func lobby(_ node: String) -> String { "bc:lobby:" + node }
    static let gamePrefix = "bc:g:"
}

/// The Lua scripts a node runs on Redis (`EVAL`), each one atomic there.
enum RedisScripts {
    /// A diff kept in the game's capped stream and published, in one atomic step: a node
    /// that missed the publication finds it in the stream.
    static let publishDiff = """
        redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'm', ARGV[2])
        redis.call('PEXPIRE', KEYS[1], ARGV[3])
        return redis.call('PUBLISH', KEYS[2], ARGV[2])
        """

    /// Renews this node's liveness key only while it still holds this process's incarnation:
    /// 1 renewed, 2 renewed after it had run out (this node was paused or cut off past its
    /// lease), 0 another process holds the name.
    static let renew = """
        local holder = redis.call('GET', KEYS[1])
        if holder == ARGV[1] then
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
          return 1
        end
        if holder == false then
          redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
          return 2
        end
        return 0
        """

    /// The cluster as one read: every node seen within the hour (this one noted now, older ones
    /// forgotten), which of them hold their liveness key and what their lobbies are, and the
    /// node codes (where game ids name their owner).
    static let view = """
        local now = tonumber(ARGV[1])
        redis.call('ZADD', 'bc:nodes', now, ARGV[2])
        redis.call('ZREMRANGEBYSCORE', 'bc:nodes', '-inf', now - 3600000)
        local nodes = redis.call('ZRANGE', 'bc:nodes', 0, -1)
        local alive, lobbies = {}, {}
        if #nodes > 0 then
          local aliveKeys, lobbyKeys = {}, {}
          for i, node in ipairs(nodes) do
            aliveKeys[i] = 'bc:alive:' .. node
            lobbyKeys[i] = 'bc:lobby:' .. node
          end
          alive = redis.call('MGET', unpack(aliveKeys))
          lobbies = redis.call('MGET', unpack(lobbyKeys))
        end
        return {nodes, alive, lobbies, redis.call('HGETALL', 'bc:codes')}
        """
}
