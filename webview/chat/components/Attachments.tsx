// Attachments of a prompt: @-mentioned files as chips, images as thumbnails. Used by the composer
// (removable, before sending) and by a sent prompt in the conversation. Images are shown only from
// data: URLs of the four image types the API accepts (anything else is not rendered).

const SAFE_IMAGE_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

export const isSafeImageUrl = (url: string): boolean => SAFE_IMAGE_URL.test(url);

export function AttachmentList({
  files,
  images,
  onRemoveFile,
  onRemoveImage,
}: {
  files: readonly string[];
  images: readonly string[];
  onRemoveFile?: (path: string) => void;
  onRemoveImage?: (index: number) => void;
}) {
  if (files.length === 0 && images.length === 0) return null;
  return (
    <ul class="attachments" aria-label="Attachments">
      {files.map((f) => (
        <li key={`f:${f}`} class="mention-chip" title={`The content of ${f} goes with the prompt`}>
          <span class="mention-at" aria-hidden="true">
            @
          </span>
          {f}
          {onRemoveFile ? (
            <button type="button" class="chip-remove" aria-label={`Remove @${f}`} onClick={() => onRemoveFile(f)}>
              ×
            </button>
          ) : null}
        </li>
      ))}
      {images.map((url, i) =>
        isSafeImageUrl(url) ? (
          <li key={`i:${i}`} class="image-thumb">
            <img src={url} alt={`Image ${i + 1}`} />
            {onRemoveImage ? (
              <button type="button" class="chip-remove" aria-label={`Remove image ${i + 1}`} onClick={() => onRemoveImage(i)}>
                ×
              </button>
            ) : null}
          </li>
        ) : null,
      )}
    </ul>
  );
}
