"""The exceptions bulkcrypt raises: a small hierarchy over the C API's bc_status.

Every exception is a :class:`bulkcrypt.Error`; its ``status`` names the C API's
status (``"BC_ERR_AUTH_FAILED"``) and its message is the library's sentence followed
by the detail of the failure. Argument errors are also :class:`ValueError`, device
failures :class:`RuntimeError`, so generic handlers keep working.
"""

from __future__ import annotations

__all__ = [
    "Error",
    "InvalidArgument",
    "UnsupportedAlgorithm",
    "InvalidTag",
    "InvalidPadding",
    "AlreadyFinalized",
    "DeviceError",
    "OutOfMemory",
    "InternalError",
    "InvalidFile",
    "InvalidKey",
]


class Error(Exception):
    """Base class of every bulkcrypt failure."""

    status: str

    def __init__(self, message: str, status: str = "BC_ERR_INTERNAL") -> None:
        super().__init__(message)
        self.status = status


class InvalidArgument(Error, ValueError):
    """A key, nonce, IV, tag or buffer the call cannot take (its size, its memory, its layout)."""


class UnsupportedAlgorithm(Error):
    """The algorithm, mode or memory kind is not in this build or not on this device."""


class InvalidTag(Error):
    """Authentication failed: the data, the associated data, the nonce or the key is not the
    one that was sealed. No plaintext was released."""


class InvalidPadding(Error, ValueError):
    """PKCS#7 padding was malformed on decryption; the output was wiped."""


class AlreadyFinalized(Error):
    """A streaming call out of order (after finalize, or after a failure)."""


class DeviceError(Error, RuntimeError):
    """The device is absent, failed or was asked for in a malformed way."""


class OutOfMemory(DeviceError, MemoryError):
    """Host or device memory ran out."""


class InternalError(Error, RuntimeError):
    """A bug in bulkcrypt; please report it."""


class InvalidFile(Error, ValueError):
    """The input is not a bulkcrypt file, or its header is damaged or out of bounds."""


class InvalidKey(Error, ValueError):
    """The key or passphrase does not open this file (its header's key check differs)."""


_BY_STATUS: dict[str, type[Error]] = {
    "BC_ERR_NULL_POINTER": InvalidArgument,
    "BC_ERR_INVALID_ARGUMENT": InvalidArgument,
    "BC_ERR_UNKNOWN_ALGORITHM": UnsupportedAlgorithm,
    "BC_ERR_KEY_SIZE": InvalidArgument,
    "BC_ERR_IV_SIZE": InvalidArgument,
    "BC_ERR_TAG_SIZE": InvalidArgument,
    "BC_ERR_INPUT_LENGTH": InvalidArgument,
    "BC_ERR_MESSAGE_TOO_LONG": InvalidArgument,
    "BC_ERR_COUNTER_OVERFLOW": InvalidArgument,
    "BC_ERR_OVERLAP": InvalidArgument,
    "BC_ERR_OUTPUT_TOO_SMALL": InvalidArgument,
    "BC_ERR_AUTH_FAILED": InvalidTag,
    "BC_ERR_BAD_PADDING": InvalidPadding,
    "BC_ERR_NOT_SUPPORTED": UnsupportedAlgorithm,
    "BC_ERR_BAD_DEVICE": DeviceError,
    "BC_ERR_NO_DEVICE": DeviceError,
    "BC_ERR_DEVICE": DeviceError,
    "BC_ERR_OUT_OF_MEMORY": OutOfMemory,
    "BC_ERR_BAD_STATE": AlreadyFinalized,
    "BC_ERR_BAD_OPTION": InvalidArgument,
    "BC_ERR_INTERNAL": InternalError,
}


def _class_for_status(status: str) -> type[Error]:
    return _BY_STATUS.get(status, Error)
