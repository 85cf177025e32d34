/// The state of a Klondike game (PROTOCOL section 5), and of each table of a race.
///
/// Cards are two characters, rank then suit (`"TD"`, `"AS"`); a face-down card is `"??"`.
/// Every pile lists its cards bottom first: the top card is the last element.
public struct KlondikeState: Codable, Sendable, Equatable {
    /// 1 or 3: cards drawn per tap on the stock
    public var draw: Int
    public var stock: [String]
    public var waste: [String]
    /// four piles, built up by suit from the Ace
    public var foundations: [[String]]
    /// seven piles
    public var tableau: [[String]]
    public var moves: Int
    public var score: Int
    /// `playing` or `won`
    public var status: String

    /// The card that stands for a face-down one.
    public static let faceDown = "??"

    public var isWon: Bool { status == "won" }
}
