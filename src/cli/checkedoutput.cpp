// CheckedOutput: write(2) in a loop (partial writes, EINTR), errno kept as text, ftruncate(2) to roll back.
#include "checkedoutput.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

CheckedOutput::CheckedOutput(int fd, QObject *parent)
    : QIODevice(parent)
    , m_fd(fd)
{
    struct stat st = {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        m_regularFile = true;
        // With O_APPEND (>>) our bytes go after whatever the file holds when we write, not at the offset.
        const int flags = ::fcntl(fd, F_GETFL);
        const off_t offset = ::lseek(fd, 0, SEEK_CUR);
        m_startOffset
            = (flags >= 0 && (flags & O_APPEND)) ? qint64(st.st_size) : qint64(std::max<off_t>(0, offset));
    }
    open(QIODevice::WriteOnly | QIODevice::Unbuffered);
}

bool CheckedOutput::readerGone() const
{
    if (m_regularFile)
        return false;
    pollfd p {m_fd, 0, 0}; // POLLERR and POLLHUP are reported whatever is asked for
    return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP | POLLNVAL));
}

void CheckedOutput::beginDocument()
{
    m_inDocument = true;
}

void CheckedOutput::endDocument()
{
    m_inDocument = false;
    if (!failed())
        m_safe = m_written;
}

qint64 CheckedOutput::writeData(const char *data, qint64 length)
{
    if (failed())
        return -1;
    qint64 done = 0;
    while (done < length) {
        const ssize_t n = ::write(m_fd, data + done, size_t(length - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            // A write that takes nothing (n == 0) would loop forever: treat it as the device refusing.
            fail(n < 0 ? errno : ENOSPC, length);
            return -1;
        }
        done += n;
    }
    const qint64 before = m_written;
    m_written += length;
    if (!m_inDocument) {
        for (qint64 i = length - 1; i >= 0; --i) {
            if (data[i] == '\n') {
                m_safe = before + i + 1;
                break;
            }
        }
    }
    return length;
}

void CheckedOutput::fail(int error, qint64 attempted)
{
    m_error = error == EPIPE ? QStringLiteral("the reader went away (broken pipe)")
                             : QString::fromLocal8Bit(std::strerror(error));
    if (m_regularFile) {
        // Only take back our own bytes (what was written, plus part of the failed write): if the file
        // holds anything else past them, someone else appended meanwhile and the file is left alone.
        struct stat st = {};
        const qint64 ours = m_startOffset + m_written;
        if (::fstat(m_fd, &st) == 0 && qint64(st.st_size) >= ours && qint64(st.st_size) <= ours + attempted
            && ::ftruncate(m_fd, off_t(m_startOffset + m_safe)) == 0) {
            ::lseek(m_fd, off_t(m_startOffset + m_safe), SEEK_SET);
        }
    }
    emit writeFailed(m_error);
}
