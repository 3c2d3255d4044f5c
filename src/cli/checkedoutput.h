// Standard output as a device whose every write is checked: a full disk, a closed pipe or a reader that went
// away is remembered (first error wins) instead of being lost, so the command can end with exit 1 and say
// why. When standard output is a regular file, a failed write takes back what cannot be whole: the
// unfinished line, or the whole document being written.
#pragma once

#include <QIODevice>

class CheckedOutput : public QIODevice
{
    Q_OBJECT
public:
    explicit CheckedOutput(int fd, QObject *parent = nullptr);

    bool isSequential() const override { return true; }

    // The first write error ("No space left on device"), empty while every write succeeded.
    QString errorText() const { return m_error; }
    bool failed() const { return !m_error.isEmpty(); }
    // True when the reader of a pipe or socket has gone away (even if nothing was written since): poll()
    // reports an error or hang-up on our end. Always false for files and terminals.
    bool readerGone() const;

    // Brackets one document (a JSON object, a table): if a write fails inside it, a regular file is cut
    // back to where the document began, so no reader ever finds half of it.
    void beginDocument();
    void endDocument();

signals:
    // Emitted once, at the first failed write.
    void writeFailed(const QString &reason);

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 length) override;

private:
    void fail(int error, qint64 attempted);

    int m_fd;
    bool m_regularFile = false;
    qint64 m_startOffset = 0; // where our output began in a regular file
    qint64 m_written = 0; // bytes written successfully
    qint64 m_safe = 0; // bytes that form whole lines outside any open document
    bool m_inDocument = false;
    QString m_error;
};
