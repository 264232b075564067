import Hummingbird
import HummingbirdWebSocket
print("tactus-web")
